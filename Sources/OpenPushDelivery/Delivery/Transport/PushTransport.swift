import OpenPushCore

/// A push service the engine sends planned pushes through: it takes one job's batch and gives
/// back each push's outcome, already classified by the service's own rules (retry, dead
/// token, credential pause, failure). The engine records outcomes alike whatever the
/// transport; it picks one by token kind only (`PushTransports`).
protocol PushTransport: Sendable {
    /// Each push's outcome at its delivery's id (its index in the job); nil for those not sent.
    func send(_ batch: PushBatch, recipients: Int, lane: DeliveryLane) async -> [PushOutcome?]
}
