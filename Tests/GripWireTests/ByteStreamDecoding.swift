import GripWire

/// Feeds a byte-stream device's decoder (CTS500, Climbro, Motherboard) the same bytes cut three ways — whole, byte
/// by byte, and in chunks of `chunk` — in the spirit of swift-nio's ByteToMessageDecoderVerifier: the samples must
/// not depend on where the link cut the stream.
struct ByteStreamDecoding<Profile: DeviceProfile> {
    let profile: Profile

    /// One decoder over these notifications, 10 ms apart.
    func decode(_ notifications: [[UInt8]]) -> (outcomes: [FrameOutcome], kilograms: [Float]) {
        var decoder = profile.makeDecoder()
        var kilograms: [Float] = []
        var micros: Int64 = 1_000_000
        let outcomes = notifications.map { value in
            micros += 10_000
            return value.withUnsafeBytes { decoder.decode($0, hostMicros: micros) { kilograms.append($0.kilograms) } }
        }
        return (outcomes, kilograms)
    }

    /// The forces `stream` decodes to whole, byte by byte and in chunks of `chunk` bytes; nil when they differ.
    func sameForcesHoweverCut(_ stream: [UInt8], chunk: Int = 5) -> [Float]? {
        let whole = decode([stream]).kilograms
        let bytes = decode(stream.map { [$0] }).kilograms
        let chunks = decode(stride(from: 0, to: stream.count, by: chunk).map {
            Array(stream[$0..<min($0 + chunk, stream.count)])
        }).kilograms
        return whole == bytes && bytes == chunks ? whole : nil
    }
}
