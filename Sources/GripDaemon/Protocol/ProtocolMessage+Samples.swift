import GripProtocol
extension ProtocolMessage {
    /// Writes one SAMPLES line byte by byte into the start of `line`, which grows when it is too short, and returns
    /// its length: the same text `JSONLine` would give (`t` as `Double.description` prints the seconds, `kg` as
    /// `Float.description`).
    ///
    /// The consumer makes one for every batch or notification (`LiveWriter`) and keeps `line` from one to the next,
    /// so a line costs no allocation and no UTF-8 check. Appending each number's description to a string with `+=`
    /// cost about 1,900 instructions a sample, a third of the consumer thread's; this costs about 630, 290 of them
    /// `Float.description` (Benchmarks/README.md, "Live path: instructions per wake-up").
    static func writeSamples(micros: ArraySlice<Int64>, kilograms: ArraySlice<Float>, into line: inout [UInt8]) -> Int {
        let capacity = SamplesLineWriter.capacity(samples: micros.count)
        if line.count < capacity { line.append(contentsOf: repeatElement(0, count: capacity - line.count)) }
        return line.withUnsafeMutableBufferPointer { storage in
            var writer = SamplesLineWriter(storage)
            writer.append(#"{"class":"SAMPLES","t":["#)
            var first = true
            for value in micros {
                if !first { writer.append(",") }
                first = false
                writer.appendSeconds(micros: value)
            }
            writer.append(#"],"kg":["#)
            first = true
            for value in kilograms {
                if !first { writer.append(",") }
                first = false
                var text = value.description
                writer.append(&text)
            }
            writer.append("]}\n")
            return writer.count
        }
    }
}

/// Writes a SAMPLES line into storage reserved for it (``capacity(samples:)``).
///
/// Written by hand because no library here formats into caller-owned bytes; every write is bounds-checked, so a
/// wrong capacity traps instead of writing past the storage.
struct SamplesLineWriter {
    /// The longest a sample can take: `Double.description` is at most 24 bytes ("-2.2250738585072014e-308"),
    /// `Float.description` at most 15, plus the two commas; rounded up.
    static let maxBytesPerSample = 48
    /// `{"class":"SAMPLES","t":[` + `],"kg":[` + `]}\n`, rounded up.
    static let frameBytes = 48

    static func capacity(samples: Int) -> Int { frameBytes + maxBytesPerSample * samples }

    /// Stream times written as integer arithmetic: there `Double(micros) / 1e6` prints as the decimal micros have,
    /// with 15 significant digits at most, which is what `Double.description` gives back (the shortest text that
    /// reads as the same double). Below, `Double.description` switches to exponent form ("5e-05").
    static let integerSecondsRange: Range<Int64> = 100..<1_000_000_000_000_000

    private let storage: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ storage: UnsafeMutableBufferPointer<UInt8>) {
        self.storage = storage
    }

    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ text: inout String) {
        text.withUTF8 { append($0) }
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(count + bytes.count <= storage.count, "SAMPLES line longer than its capacity")
        for byte in bytes {
            storage[count] = byte
            count += 1
        }
    }

    /// Stream microseconds as seconds, as `Double.description` prints `ProtocolMessage.seconds(micros)`.
    mutating func appendSeconds(micros: Int64) {
        guard Self.integerSecondsRange.contains(micros) else {
            var text = ProtocolMessage.seconds(micros).description
            append(&text)
            return
        }
        let (whole, fraction) = micros.quotientAndRemainder(dividingBy: 1_000_000)
        appendDigits(of: whole, width: 1)
        append(".")
        guard fraction != 0 else {
            append("0")
            return
        }
        var digits = fraction
        var width = 6
        while digits % 10 == 0 {
            digits /= 10
            width -= 1
        }
        appendDigits(of: digits, width: width)
    }

    /// `value` (≥ 0) in decimal, left-padded with zeros to `width` digits.
    private mutating func appendDigits(of value: Int64, width: Int) {
        var length = 1
        var rest = value / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        length = max(length, width)
        precondition(count + length <= storage.count, "SAMPLES line longer than its capacity")
        var remaining = value
        for index in stride(from: count + length - 1, through: count, by: -1) {
            storage[index] = UInt8(truncatingIfNeeded: remaining % 10) + UInt8(ascii: "0")
            remaining /= 10
        }
        count += length
    }
}
