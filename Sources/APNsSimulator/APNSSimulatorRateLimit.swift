/// The simulator's accept rate cap: a token bucket of `rate` tokens a second that holds at most
/// `burst`, where a request that finds no token waits for the next one rather than being
/// refused, in the order requests arrived (whatever their connection) — a congested APNs, not a
/// rejecting one. Kept as the time the bucket next has a token (GCRA's virtual scheduling),
/// so a reservation is O(1) with time passed in.
struct APNSSimulatorRateLimit {
    let rate: Double
    let burst: Int
    /// When the bucket would be empty again if nothing more came (monotonic seconds).
    private var theoreticalArrival = -Double.infinity

    /// `burst` defaults to 20 ms' worth of tokens (at least one), so a cap of N/s holds over
    /// any window longer than that.
    init(rate: Double, burst: Int? = nil) {
        self.rate = rate
        self.burst = max(1, burst ?? Int(rate / 50))
    }

    /// Takes the next token for a request that arrived at `now`; returns when it may be
    /// answered (`now` when a token was there).
    mutating func reserve(now: Double) -> Double {
        let interval = 1 / rate
        let tolerance = Double(burst - 1) * interval
        let due = max(now, theoreticalArrival - tolerance)
        theoreticalArrival = max(theoreticalArrival, now) + interval
        return due
    }
}
