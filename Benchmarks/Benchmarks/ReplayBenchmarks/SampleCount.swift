import GripStream

/// The replay benchmark's sink: what `griptrack replay`'s report builder does per sample, without the report.
struct SampleCount: StreamSink {
    var samples = 0

    mutating func consume(_ output: StreamOutput, hostMicros: Int64) {
        if case .sample = output { samples += 1 }
    }
}
