// Runs Debian's tshark (Wireshark) as an independent btsnoop reader, to cross-check BtsnoopParser.
//
// tshark 4.0.17 (Debian 12) decodes 0x1B notifications and 0x1D indications but not 0x23 Multiple Handle Value
// Notifications: it prints "Opcode: Unknown (0x23)" and no handle or value. `notifications(in:)` therefore reports
// such frames in `undecodedMultipleNotificationFrames`, so callers can leave them out of the comparison; a newer
// tshark that decodes 0x23 prints comma-separated handles and values, which are expanded into one row each.

import Foundation

/// A tshark runner for cross-checks.
public enum Tshark {
    /// One notification or indication as tshark prints it.
    public struct Notification: Equatable, Sendable, CustomStringConvertible {
        /// `frame.number`: the 1-based record number.
        public var frame: Int
        /// `frame.time_relative` in µs (time since the first record).
        public var relativeMicros: Int64
        /// `btatt.handle`.
        public var handle: UInt16
        /// `btatt.value`.
        public var value: [UInt8]

        public init(frame: Int, relativeMicros: Int64, handle: UInt16, value: [UInt8]) {
            self.frame = frame
            self.relativeMicros = relativeMicros
            self.handle = handle
            self.value = value
        }

        public var description: String {
            "frame \(frame) +\(relativeMicros) µs handle 0x\(String(handle, radix: 16)) value "
                + value.map { String(format: "%02x", $0) }.joined()
        }
    }

    /// One manufacturer-specific AD structure of an advertising report, as tshark prints it.
    public struct Advertisement: Equatable, Sendable {
        public var frame: Int
        /// `bthci_evt.bd_addr`, as printed (`f4:d3:…`), in bytes.
        public var address: [UInt8]
        /// `btcommon.eir_ad.entry.company_id`.
        public var manufacturerID: UInt16
        /// `btcommon.eir_ad.entry.data`: the bytes after the company id.
        public var data: [UInt8]

        public init(frame: Int, address: [UInt8], manufacturerID: UInt16, data: [UInt8]) {
            self.frame = frame
            self.address = address
            self.manufacturerID = manufacturerID
            self.data = data
        }
    }

    /// Every advertising report's manufacturer data in the capture (one row per report with one such structure).
    public static func advertisements(in path: String, tshark: String) throws -> [Advertisement] {
        let text = try run(tshark, arguments: [
            "-r", path, "-Y", "btcommon.eir_ad.entry.company_id", "-T", "fields",
            "-e", "frame.number", "-e", "bthci_evt.bd_addr", "-e", "btcommon.eir_ad.entry.company_id",
            "-e", "btcommon.eir_ad.entry.data",
        ])
        return try text.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count == 4, let frame = Int(columns[0]),
                  let address = hexBytes(columns[1].replacingOccurrences(of: ":", with: "")),
                  let company = UInt16(columns[2].dropFirst(2), radix: 16), let data = hexBytes(columns[3])
            else { throw Failure(description: "unexpected tshark advertisement line: \(line)") }
            return Advertisement(frame: frame, address: address, manufacturerID: company, data: data)
        }
    }

    /// What tshark saw in one capture.
    public struct Report: Sendable {
        /// Decoded notifications and indications (and 0x23 entries if this tshark decodes them), in frame order.
        public var notifications: [Notification]
        /// Frames holding a 0x23 PDU that this tshark did not decode (no handle printed).
        public var undecodedMultipleNotificationFrames: Set<Int>
    }

    /// A failure to run tshark or read its output.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) { self.description = description }
    }

    /// The tshark executable on `PATH`, or nil.
    public static func locate() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/tshark"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether a missing tshark must fail the cross-check instead of skipping it: the environment variable `CI` is
    /// set (to anything).
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    /// Runs tshark and returns its standard output; standard error (e.g. the "Running as user root" warning) is
    /// ignored unless the exit status is non-zero.
    /// - Throws: `Failure` when tshark cannot start or exits non-zero.
    public static func run(_ executable: String, arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read before waiting so a large output cannot fill the pipe and block tshark.
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "tshark \(arguments.joined(separator: " ")) exited "
                + "\(process.terminationStatus): \(String(decoding: stderr, as: UTF8.self))")
        }
        return String(decoding: stdout, as: UTF8.self)
    }

    /// The ATT notifications (`0x1B`), indications (`0x1D`) and, when decoded, multiple notifications (`0x23`) in a
    /// capture, as tshark reads them.
    ///
    /// Runs `tshark -r FILE -Y 'btatt.opcode==0x1b || btatt.opcode==0x1d || btatt.opcode==0x23' -T fields
    /// -e frame.number -e frame.time_relative -e btatt.opcode -e btatt.handle -e btatt.value`.
    /// - Throws: `Failure` when tshark fails or prints something unexpected.
    /// A field tshark prints in decimal or `0x` hex.
    private static func integer(_ text: String) -> Int? {
        text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
    }

    public static func notifications(in path: String, tshark: String) throws -> Report {
        let text = try run(tshark, arguments: [
            // btgatt off: tshark would print a Nordic UART value (the Motherboard's) as a string, not btatt.value.
            "-r", path, "--disable-protocol", "btgatt",
            "-Y", "btatt.opcode==0x1b || btatt.opcode==0x1d || btatt.opcode==0x23",
            "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
            "-e", "frame.number", "-e", "frame.time_relative", "-e", "btatt.opcode", "-e", "btatt.handle",
            "-e", "btatt.value", "-e", "btatt.weight_measurement.flags", "-e", "btatt.weight_measurement.weight.kg",
        ])
        var report = Report(notifications: [], undecodedMultipleNotificationFrames: [])
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count == 7, let frame = Int(columns[0]), let micros = microseconds(columns[1]) else {
                throw Failure(description: "unexpected tshark line: \(line)")
            }
            let handles = columns[3].isEmpty ? [] : columns[3].split(separator: ",").map(String.init)
            let values = columns[4].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if handles.isEmpty {
                guard columns[2].split(separator: ",").contains("0x23") else {
                    throw Failure(description: "tshark printed no handle for a notification: \(line)")
                }
                report.undecodedMultipleNotificationFrames.insert(frame)
                continue
            }
            // tshark dissects a SIG Weight Measurement (0x2A9D) into its fields instead of btatt.value: the value is
            // rebuilt from its flags and SI weight (the captures hold no other), an independent reading of that format too.
            if handles.count == 1, columns[4].isEmpty, let flags = integer(columns[5]), let weight = integer(columns[6]),
               let handle = UInt16(handles[0].dropFirst(2), radix: 16) {
                let value = [UInt8(flags), UInt8(weight & 0xFF), UInt8(weight >> 8)]
                report.notifications.append(Notification(frame: frame, relativeMicros: micros, handle: handle, value: value))
                continue
            }
            for (index, handleText) in handles.enumerated() {
                guard let handle = UInt16(handleText.dropFirst(2), radix: 16),
                      let value = hexBytes(index < values.count ? values[index] : "")
                else {
                    throw Failure(description: "unexpected tshark handle or value: \(line)")
                }
                report.notifications.append(
                    Notification(frame: frame, relativeMicros: micros, handle: handle, value: value))
            }
        }
        return report
    }

    /// `2.093037000` → 2093037 (rounded to the microsecond).
    static func microseconds(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let seconds = Int64(parts[0]) else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        let nanosText = String((fraction + "000000000").prefix(9))
        guard let nanos = Int64(nanosText) else { return nil }
        return seconds * 1_000_000 + (nanos + 500) / 1000
    }

    /// `1605` → [0x16, 0x05]; also accepts `16:05`.
    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.filter { $0 != ":" })
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let byte = UInt8(String(digits[index..<(index + 2)]), radix: 16) else { return nil }
            bytes.append(byte)
            index += 2
        }
        return bytes
    }
}
