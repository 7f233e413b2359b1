"""The exception every failed aclnn status raises."""


class AclnnError(RuntimeError):
    """A failed aclnn call: ``code`` is the aclnn status, ``message`` the text of
    aclGetRecentErrMsg()."""

    def __init__(self, code, message):
        super().__init__(f"aclnn status {code}: {message}")
        self.code = int(code)
        self.message = str(message)
