import COpenSSL
func _v() -> UInt { OpenSSL_version_num() }
