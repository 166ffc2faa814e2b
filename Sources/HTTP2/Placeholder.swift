import CNghttp2
func _v() -> UnsafeMutablePointer<nghttp2_info>? { nghttp2_version(0) }
