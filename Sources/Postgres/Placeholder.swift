import CPostgres
func _v() -> Int32 { PQlibVersion() }
