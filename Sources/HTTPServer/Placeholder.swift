import CMicroHTTPD
func _v() -> UnsafePointer<CChar>? { MHD_get_version() }
