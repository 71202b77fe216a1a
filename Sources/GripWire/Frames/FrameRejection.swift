/// Why a notification frame was counted and skipped instead of decoded.
///
/// Every rejected frame has exactly one reason; the raw values are the keys of `frames.malformed` in
/// `griptrack replay --json` (see `docs/replay-json.md`), so they must never change once shipped.
public enum FrameRejection: String, CaseIterable, Sendable, Codable, Comparable {
    /// Fewer bytes than the frame header (code + length).
    case short
    /// The declared payload length differs from the bytes received.
    case lengthMismatch = "length_mismatch"
    /// A weight frame whose payload is not a whole number of 8-byte samples (or is empty).
    case notMultipleOf8 = "not_multiple_of_8"
    /// A response code the profile does not know.
    case unknownCode = "unknown_code"
    /// A weight that is NaN or infinite.
    case nonFinite = "non_finite"
    /// The same samples as the frame before (a repeated notification).
    case duplicate
    /// A notification on a handle other than the device's force characteristic.
    case wrongHandle = "wrong_handle"
    /// A weight outside what the device can measure (its profile's `measurementRangeKg`): not a force anyone applied.
    case outOfRange = "out_of_range"
    /// A change from the previous sample faster than any hand or load cell can produce (the profile's
    /// `maxBelievableKgPerSecond`): a corrupted value that happens to lie inside the range.
    case implausibleStep = "implausible_step"
    /// A sample stamped further ahead of the previous one than the time that passed on the host explains (a
    /// corrupted device time, docs/segmentation.md); the frame's other samples are kept.
    case timeJump = "time_jump"
    /// A checksummed frame of a byte-stream device (the CTS500) whose checksum does not match its bytes; the stream
    /// resynchronises on the next header, and the notification's other frames are dropped with it.
    case badChecksum = "bad_checksum"
    /// Bytes of a byte-stream device that belong to no frame or line: a capture that starts inside one, a lost
    /// notification's remainder, a line longer than any the device sends, bytes before a Climbro's first marker.
    case unframed
    /// A reading that needs the device's own calibration table before it is a force, seen before the table was read
    /// (a Motherboard data line before its `C` answer).
    case uncalibrated

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
