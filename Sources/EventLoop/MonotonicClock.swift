#if canImport(Glibc)
import Glibc
#endif

/// Seconds on CLOCK_MONOTONIC, for timers and deadlines: unlike the wall clock it never
/// steps, and tests may replace the wall clock (JWT `iat`) without disturbing the timers.
package enum MonotonicClock {
    package static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }
}
