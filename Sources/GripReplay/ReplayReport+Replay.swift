import GripStream

extension ReplayReport {
    /// Replays the capture at `path` (`CaptureReplay.run`) and reports on it: `griptrack replay`.
    /// - Parameters:
    ///   - observer: called on the consuming thread with every pipeline output and the host time of the capture
    ///     record that produced it (see `CaptureReplay.run`), in order.
    /// - Returns: the report; a damaged capture still yields one, with `capture.error` set, covering every record
    ///   before the damage.
    /// - Throws: `ReplayError` when nothing could be replayed.
    package static func replaying(
        path: String, options: ReplayOptions = .init(), observer: ((StreamOutput, _ hostMicros: Int64) -> Void)? = nil
    ) throws(ReplayError) -> ReplayReport {
        var builder = ReplayReportBuilder(observer: observer)
        let outcome = try CaptureReplay.run(path: path, options: options, sink: &builder)
        return builder.report(outcome)
    }
}
