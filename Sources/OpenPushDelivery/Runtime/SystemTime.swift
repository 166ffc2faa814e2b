import Foundation

func systemNow() -> Double { Date().timeIntervalSince1970 }
