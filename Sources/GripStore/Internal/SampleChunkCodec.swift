import Foundation

/// The lossless byte layout of a sample chunk (encoding 1), at most 8 bytes per sample.
///
/// The chunk row holds `firstMicros` (device time of the first sample) and `sampleCount`. Its blob is, per sample,
/// in order:
///
/// | bytes | field |
/// |---|---|
/// | 4 | the float32 force, its IEEE-754 bit pattern, little-endian (NaN payloads and -0 survive) |
/// | 1–4 | µs since the previous sample (the first sample: since `firstMicros`, so 0), unsigned LEB128 |
///
/// A delta must be in `0 ..< 2^28` µs so that it fits 4 LEB128 bytes: a sample that goes back in time or comes more
/// than 268 s after the previous one starts a new chunk. So a sample costs 5–8 bytes; at 80 Hz (12 500 µs apart) it
/// costs 6.
enum SampleChunkCodec {
    /// The value of the `encoding` column for this layout.
    static let encoding = 1
    /// The largest time step inside one chunk, in µs (4 LEB128 bytes).
    static let maxDeltaMicros: Int64 = (1 << 28) - 1
    /// The most bytes one sample can take.
    static let maxBytesPerSample = 8

    /// Whether a sample at `next` µs may follow one at `previous` µs in the same chunk.
    static func canFollow(_ previous: Int64, _ next: Int64) -> Bool {
        let (delta, overflow) = next.subtractingReportingOverflow(previous)
        return !overflow && delta >= 0 && delta <= maxDeltaMicros
    }

    /// Encodes consecutive samples of one chunk.
    ///
    /// - Precondition: Each sample satisfies `canFollow` with its predecessor.
    static func encode(_ samples: ArraySlice<StoredSample>) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(samples.count * 6)
        var previous = samples.first?.micros ?? 0
        for sample in samples {
            precondition(canFollow(previous, sample.micros), "chunk split missed a time step")
            let bits = sample.kilograms.bitPattern
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
            var delta = UInt64(sample.micros - previous)
            repeat {
                let low = UInt8(delta & 0x7F)
                delta >>= 7
                bytes.append(delta == 0 ? low : low | 0x80)
            } while delta != 0
            previous = sample.micros
        }
        return Data(bytes)
    }

    /// Decodes a chunk.
    ///
    /// Any row values are accepted (a damaged or hand-edited database): a count the blob cannot hold, a truncated
    /// or overlong delta, a time past `Int64`, and trailing bytes are failures naming the sample and byte offset.
    ///
    /// - Returns: The samples, or a description of what is wrong with the bytes.
    static func decode(firstMicros: Int64, count: Int, bytes: Data) -> Result<[StoredSample], DecodeFailure> {
        // Every sample takes at least 5 bytes: check the count before reserving memory for it.
        guard count >= 0, count <= bytes.count / 5 else {
            return .failure(DecodeFailure(
                detail: "sampleCount \(count) does not fit a \(bytes.count)-byte blob (5 to 8 bytes per sample)"))
        }
        var samples = [StoredSample]()
        samples.reserveCapacity(count)
        var micros = firstMicros
        var index = bytes.startIndex
        for _ in 0..<count {
            let offset = index - bytes.startIndex
            guard bytes.endIndex - index >= 5 else {
                return .failure(DecodeFailure(detail: "blob ends inside sample \(samples.count) of \(count) (byte \(offset))"))
            }
            var bits = UInt32(bytes[index])
            bits |= UInt32(bytes[index + 1]) << 8
            bits |= UInt32(bytes[index + 2]) << 16
            bits |= UInt32(bytes[index + 3]) << 24
            index += 4
            var delta: Int64 = 0
            var shift: Int64 = 0
            while true {
                guard index < bytes.endIndex, shift < 28 else {
                    return .failure(DecodeFailure(detail: "bad time delta in sample \(samples.count) (byte \(offset + 4))"))
                }
                let byte = bytes[index]
                index += 1
                delta |= Int64(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            let (next, overflow) = micros.addingReportingOverflow(delta)
            guard !overflow else {
                return .failure(DecodeFailure(
                    detail: "sample \(samples.count) lies past the largest device time (byte \(offset + 4))"))
            }
            micros = next
            samples.append(StoredSample(micros: micros, kilograms: Float(bitPattern: bits)))
        }
        guard index == bytes.endIndex else {
            return .failure(DecodeFailure(
                detail: "\(bytes.endIndex - index) bytes left after \(count) samples (byte \(index - bytes.startIndex))"))
        }
        return .success(samples)
    }

    /// Why a blob could not be decoded.
    struct DecodeFailure: Error {
        var detail: String
    }
}
