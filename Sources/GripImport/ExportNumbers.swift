/// Number fields of the exports, read exactly.
enum ExportNumbers {
    /// Seconds as written (`0.054285`, `124.42755`, `0.011412000000000005`) to whole microseconds.
    ///
    /// Read digit by digit rather than through `Double`, so six decimals always give back the exact microsecond
    /// griptrack's export wrote, however large the time; longer fractions (the app sometimes writes binary floating
    /// point noise) are rounded half up to the microsecond. Exponent notation falls back to `Double`.
    ///
    /// - Returns: µs, or `nil` when the text is not a finite decimal number of seconds in range.
    static func micros(_ raw: String) -> Int64? {
        let text = raw.trimmingSpaces
        if text.utf8.contains(where: { $0 == 0x65 || $0 == 0x45 }) {
            guard let seconds = Double(text), seconds.isFinite, abs(seconds) < 9.2e12 else { return nil }
            return Int64((seconds * 1_000_000).rounded())
        }
        var bytes = Array(text.utf8)[...]
        var negative = false
        if let sign = bytes.first, sign == 0x2D || sign == 0x2B {
            negative = sign == 0x2D
            bytes = bytes.dropFirst()
        }
        let point = bytes.firstIndex(of: 0x2E)
        let whole = bytes[..<(point ?? bytes.endIndex)]
        let fraction = point.map { bytes[($0 + 1)...] } ?? []
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        guard !(whole.isEmpty && fraction.isEmpty), whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit) else { return nil }
        var micros: Int64 = 0
        for digit in whole {
            let (times, overflow1) = micros.multipliedReportingOverflow(by: 10)
            let (plus, overflow2) = times.addingReportingOverflow(Int64(digit - 0x30))
            guard !overflow1, !overflow2 else { return nil }
            micros = plus
        }
        let (scaled, overflow) = micros.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return nil }
        micros = scaled
        var place: Int64 = 100_000
        var roundUp = false
        for (offset, digit) in fraction.enumerated() {
            let value = Int64(digit - 0x30)
            if offset < 6 {
                micros += value * place
                place /= 10
            } else {
                roundUp = offset == 6 && value >= 5
                break
            }
        }
        if roundUp { micros += 1 }
        return negative ? -micros : micros
    }

    /// A force as written, to the nearest `Float`.
    ///
    /// Parsed straight to `Float` (correctly rounded), never through `Double`: a double rounding could land on the
    /// neighbouring float, and griptrack's export writes the shortest text that gives back the stored float exactly.
    ///
    /// - Returns: kg, or `nil` when the text is not a finite number.
    static func kilograms(_ raw: String) -> Float? {
        let text = raw.trimmingSpaces
        guard !text.isEmpty, text.utf8.allSatisfy(isNumberByte), let value = Float(text), value.isFinite else { return nil }
        return value
    }

    /// A header figure (`10.3841515`, `8`, `72.0`); the app writes `-` or nothing for a figure it has not got.
    ///
    /// - Returns: `.absent` for empty or `-`, `.value` for a finite number, `.invalid` otherwise.
    static func figure(_ raw: String) -> Figure {
        let text = raw.trimmingSpaces
        if text.isEmpty || text == "-" { return .absent }
        guard text.utf8.allSatisfy(isNumberByte), let value = Double(text), value.isFinite else { return .invalid }
        return .value(value)
    }

    enum Figure: Equatable {
        case absent
        case value(Double)
        case invalid
    }
}

/// Bytes a decimal number may hold (digits `.` `-` `+` `e` `E`); keeps `Float("nan")`, `Float("inf")` and hex floats
/// out.
func isNumberByte(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D || byte == 0x2B || byte == 0x65 || byte == 0x45
}
