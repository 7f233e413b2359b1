// Parameter validation of aclnnEmbeddingGetWorkspaceSize and
// aclnnEmbeddingDenseBackwardGetWorkspaceSize, in CANN's order: null pointers (161001), dtypes,
// ranks, shapes, then the extent of every view; every other failure 161002 with a message naming
// the parameter, what was expected and what was got.
#include <string>
#include <vector>

#include "api/dtype.h"
#include "ops/embedding/problem.h"
#include "runtime/meta.h"

namespace openaclnn::embedding {
namespace {

constexpr const char* kWeightTypes =
    "FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT64, INT32, INT16, INT8, UINT8, BOOL, COMPLEX64, "
    "COMPLEX128";
constexpr const char* kForwardIndexTypes = "INT32, INT64";
constexpr const char* kGradTypes = "FLOAT, FLOAT16, BFLOAT16";
constexpr const char* kBackwardIndexTypes =
    "FLOAT, FLOAT16, DOUBLE, INT32, INT64, INT16, INT8, UINT8, BOOL";

bool WeightType(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_DOUBLE:
    case ACL_INT64:
    case ACL_INT32:
    case ACL_INT16:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_COMPLEX64:
    case ACL_COMPLEX128:
      return true;
    default:
      return false;
  }
}
bool ForwardIndexType(aclDataType t) { return t == ACL_INT32 || t == ACL_INT64; }
bool GradType(aclDataType t) { return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16; }
bool BackwardIndexType(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_DOUBLE:
    case ACL_INT32:
    case ACL_INT64:
    case ACL_INT16:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
      return true;
    default:
      return false;
  }
}

Status CheckOutShape(const aclTensor& out, const std::vector<int64_t>& expected, const char* why) {
  if (out.view_dims == expected) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "out shape must be %s (%s), got %s",
                     DimsString(expected).c_str(), why, ShapeString(out).c_str());
}

}  // namespace

Status CheckForward(const aclTensor* weight, const aclTensor* indices, const aclTensor* out,
                    Problem* problem) {
  if (weight == nullptr) return NullptrError("weight");
  if (indices == nullptr) return NullptrError("indices");
  if (out == nullptr) return NullptrError("out");
  OPENACLNN_RETURN_IF_ERROR(
      CheckDtypeListed(WeightType(weight->dtype), "weight", kWeightTypes, weight->dtype));
  if (out->dtype != weight->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "out dtype must equal weight dtype %s, got %s",
                       DTypeName(weight->dtype), DTypeName(out->dtype));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckDtypeListed(ForwardIndexType(indices->dtype), "indices",
                                             kForwardIndexTypes, indices->dtype));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*weight, "weight"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*indices, "indices"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*out, "out"));
  if (weight->view_dims.size() != 2) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "weight must be 2-D [numEmbeddings, embeddingDim], got shape %s",
                       ShapeString(*weight).c_str());
  }
  std::vector<int64_t> expected = indices->view_dims;
  expected.push_back(weight->view_dims[1]);
  OPENACLNN_RETURN_IF_ERROR(
      CheckOutShape(*out, expected, "indices' shape followed by weight's second dim"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*weight, "weight"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*indices, "indices"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "out"));
  Problem& p = *problem;
  p.kind = Kind::kForward;
  DescribeTensor(*weight, &p.table);
  DescribeTensor(*indices, &p.indices);
  DescribeTensor(*out, &p.out);
  p.num_indices = p.indices.Numel();
  p.num_weights = weight->view_dims[0];
  p.dim = weight->view_dims[1];
  return Status::Ok();
}

Status CheckDenseBackward(const aclTensor* grad, const aclTensor* indices, uint64_t num_weights,
                          uint64_t padding_idx, bool scale_grad_by_freq, const aclTensor* out,
                          Problem* problem) {
  if (grad == nullptr) return NullptrError("grad");
  if (indices == nullptr) return NullptrError("indices");
  if (out == nullptr) return NullptrError("out");
  OPENACLNN_RETURN_IF_ERROR(
      CheckDtypeListed(GradType(grad->dtype), "grad", kGradTypes, grad->dtype));
  OPENACLNN_RETURN_IF_ERROR(CheckDtypeListed(BackwardIndexType(indices->dtype), "indices",
                                             kBackwardIndexTypes, indices->dtype));
  if (out->dtype != grad->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "out dtype must equal grad dtype %s, got %s",
                       DTypeName(grad->dtype), DTypeName(out->dtype));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*grad, "grad"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*indices, "indices"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*out, "out"));
  if (grad->view_dims.empty()) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "grad must have at least 1 dim (its last dim is embeddingDim), got shape "
                       "%s",
                       ShapeString(*grad).c_str());
  }
  const size_t grad_rank = grad->view_dims.size();
  const int64_t dim = grad->view_dims[grad_rank - 1];
  const int64_t grad_rows = SaturatingProduct(grad->view_dims, 0, grad_rank - 1);
  const int64_t index_count = Numel(*indices);
  // CANN skips this check when embeddingDim is 0 (grad and out are empty then).
  if (dim != 0 && grad_rows != index_count) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "grad shape %s does not match indices shape %s: grad's leading dims hold "
                       "%lld rows, indices has %lld elements",
                       ShapeString(*grad).c_str(), ShapeString(*indices).c_str(),
                       static_cast<long long>(grad_rows), static_cast<long long>(index_count));
  }
  if (num_weights > static_cast<uint64_t>(kMaxViewElements)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "numWeights must be at most %lld, got %llu",
                       static_cast<long long>(kMaxViewElements),
                       static_cast<unsigned long long>(num_weights));
  }
  const std::vector<int64_t> expected = {static_cast<int64_t>(num_weights), dim};
  OPENACLNN_RETURN_IF_ERROR(CheckOutShape(*out, expected, "[numWeights, grad's last dim]"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*grad, "grad"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*indices, "indices"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "out"));
  Problem& p = *problem;
  p.kind = Kind::kDenseBackward;
  DescribeTensor(*grad, &p.table);
  DescribeTensor(*indices, &p.indices);
  DescribeTensor(*out, &p.out);
  p.num_indices = index_count;
  p.num_weights = static_cast<int64_t>(num_weights);
  p.dim = dim;
  // paddingIdx is CANN's uint64_t carrying an int64_t: a negative value (for example -1 passed
  // through) disables it, and so does a value past the table, which no valid index can equal.
  const int64_t padding = static_cast<int64_t>(padding_idx);
  p.padding_idx = padding >= 0 && padding < p.num_weights ? padding : -1;
  p.scale_grad_by_freq = scale_grad_by_freq;
  return Status::Ok();
}

}  // namespace openaclnn::embedding
