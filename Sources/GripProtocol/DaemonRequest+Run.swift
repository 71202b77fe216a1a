import GripAnalysis

extension DaemonRequest {
    /// The LABEL that stores the protocol a run on the web screen started a recording for (protocol 1.8), so
    /// `griptrack show` scores it against its planned reps without `--protocol`.
    ///
    /// - Parameters:
    ///   - id: The recording RECORD started.
    ///   - text: A built-in's name or notation; stored as ``ProtocolNotation/storedText(_:)``.
    ///   - maxKg: The athlete's max the band is a percentage of, if given.
    /// - Returns: The request, or what is wrong with the protocol or the max (the daemon's own check).
    package static func storeProtocol(id: Int64, text: String, maxKg: Double?) -> Result<DaemonRequest, RequestProblem> {
        let change = RecordingDescription(protocolNotation: ProtocolNotation.storedText(text), protocolMaxKilograms: maxKg)
        if let problem = change.problem { return .failure(RequestProblem(code: .invalid, message: problem)) }
        return .success(.label(id: id, change))
    }
}
