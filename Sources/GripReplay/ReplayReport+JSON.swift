// The `griptrack replay --json` text, written directly instead of through JSONEncoder.
//
// Why: JSONEncoder's first use in a process instantiates its generic machinery and resolves protocol conformances
// at run time, a noticeable share of every `replay --json` (Benchmarks/README.md), for one small object. The writer below produces exactly what `JSONEncoder` with `.convertToSnakeCase`,
// `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]` produces (swift-foundation's JSONWriter): keys sorted by
// their UTF-8 bytes, two-space indentation, `"key" : value`, empty containers as `{\n\n<indent>}`, nil optionals
// left out, floating-point numbers as their `description` without a trailing ".0". The golden files in
// `captures/` check it byte for byte.
//
// Where it could differ, it does not try: a report with a non-finite number (JSONEncoder throws), a string with a
// control character (escaped in ways not worth copying) or a `malformed` key that is not already snake case is
// handed to JSONEncoder (`encodedWithJSONEncoder`).

extension ReplayReport {
    /// The report as `jsonData()` writes it, or nil when only JSONEncoder can say what that is (see above).
    func directJSON() -> [UInt8]? {
        var writer = ReportJSONWriter()
        guard writer.write(self) else { return nil }
        writer.bytes.append(0x0A)
        return writer.bytes
    }
}

/// A pretty, key-sorted JSON writer for the fixed shape of `ReplayReport`.
private struct ReportJSONWriter {
    var bytes: [UInt8] = []
    private var indent = 0
    /// Cleared when a value cannot be written the way JSONEncoder would.
    private var representable = true

    init() { bytes.reserveCapacity(64 * 1024) }

    /// One member of an object: its snake-case key and a writer for its value.
    private typealias Member = (key: String, value: (inout ReportJSONWriter) -> Void)

    mutating func write(_ report: ReplayReport) -> Bool {
        object([
            ("capture", { $0.capture(report.capture) }),
            ("device", { $0.device(report.device) }),
            ("force_handle", { w in
                w.object([("handle", { $0.string(report.forceHandle.handle) }),
                          ("source", { $0.string(report.forceHandle.source) })])
            }),
            ("frames", { $0.frames(report.frames) }),
            ("recordings", { w in w.array(report.recordings) { $0.recording($1) } }),
            ("samples", { $0.integer(report.samples) }),
        ])
        return representable
    }

    private mutating func capture(_ capture: ReplayReport.Capture) {
        var members: [Member] = [
            ("bytes", { $0.integer(capture.bytes) }),
            ("records", { $0.integer(capture.records) }),
        ]
        if let datalink = capture.datalink { members.append(("datalink", { $0.integer(datalink) })) }
        if let error = capture.error { members.append(("error", { $0.string(error) })) }
        object(members)
    }

    private mutating func device(_ device: ReplayReport.Device) {
        var members: [Member] = [
            ("clock_epochs", { $0.integer(device.clockEpochs) }),
            ("clock_wraps", { $0.integer(device.clockWraps) }),
            ("connects", { $0.integer(device.connects) }),
            ("disconnects", { $0.integer(device.disconnects) }),
            ("low_power_warnings", { $0.integer(device.lowPowerWarnings) }),
            ("profile", { $0.string(device.profile) }),
        ]
        if let battery = device.batteryMv { members.append(("battery_mv", { $0.integer(battery) })) }
        if let firmware = device.firmware { members.append(("firmware", { $0.string(firmware) })) }
        if let leftOut = device.timingLeftOut { members.append(("timing_left_out", { $0.string(leftOut) })) }
        if let lost = device.lostReports { members.append(("lost_reports", { $0.integer(lost) })) }
        object(members)
    }

    private mutating func frames(_ frames: ReplayReport.Frames) {
        object([
            ("decoded", { $0.integer(frames.decoded) }),
            ("dropped", { $0.integer(frames.dropped) }),
            ("malformed", { w in
                // JSONEncoder converts dictionary keys to snake case too; the reasons already are, and a key that
                // is not (an upper-case letter) goes to JSONEncoder rather than to a copy of its conversion.
                if frames.malformed.keys.contains(where: { $0.utf8.contains { $0 >= 0x41 && $0 <= 0x5A } }) {
                    w.representable = false
                }
                w.object(frames.malformed.map { entry -> Member in (entry.key, { $0.integer(entry.value) }) })
            }),
            ("total", { $0.integer(frames.total) }),
        ])
    }

    private mutating func recording(_ recording: ReplayReport.RecordingReport) {
        var members: [Member] = [
            ("efforts", { w in w.array(recording.efforts) { $0.effort($1) } }),
            ("end_s", { $0.number(recording.endS) }),
            ("false_starts_dropped", { $0.integer(recording.falseStartsDropped) }),
            ("start_s", { $0.number(recording.startS) }),
        ]
        if let maxKg = recording.maxKg { members.append(("max_kg", { $0.number(maxKg) })) }
        if let avgKg = recording.avgKg { members.append(("avg_kg", { $0.number(avgKg) })) }
        object(members)
    }

    private mutating func effort(_ effort: ReplayReport.EffortReport) {
        var members: [Member] = [
            ("baseline_kg", { $0.number(effort.baselineKg) }),
            ("end_s", { $0.number(effort.endS) }),
            ("impulse_kg_s", { $0.number(effort.impulseKgS) }),
            ("mean_kg", { $0.number(effort.meanKg) }),
            ("open", { $0.boolean(effort.open) }),
            ("open_start", { $0.boolean(effort.openStart) }),
            ("peak_kg", { $0.number(effort.peakKg) }),
            ("start_s", { $0.number(effort.startS) }),
        ]
        if let timeToPeak = effort.timeToPeakS { members.append(("time_to_peak_s", { $0.number(timeToPeak) })) }
        if let rfd = effort.rfdKgS { members.append(("rfd_kg_s", { $0.number(rfd) })) }
        if let cells = effort.cells {
            members.append(("cells", { w in
                var cellMembers: [Member] = [
                    ("centre_mean_kg", { $0.number(cells.centreMeanKg) }),
                    ("left_mean_kg", { $0.number(cells.leftMeanKg) }),
                    ("right_mean_kg", { $0.number(cells.rightMeanKg) }),
                ]
                if let asymmetry = cells.asymmetry { cellMembers.append(("asymmetry", { $0.number(asymmetry) })) }
                w.object(cellMembers)
            }))
        }
        object(members)
    }

    // MARK: - JSON

    private mutating func object(_ members: [Member]) {
        let sorted = members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        container(open: "{", close: "}", sorted) { writer, member in
            writer.string(member.key)
            writer.bytes.append(contentsOf: " : ".utf8)
            member.value(&writer)
        }
    }

    private mutating func array<Element>(_ elements: [Element], _ write: (inout ReportJSONWriter, Element) -> Void) {
        container(open: "[", close: "]", elements, write)
    }

    /// The layout both containers share: one element per line, indented, comma-separated.
    private mutating func container<Element>(
        open: Unicode.Scalar, close: Unicode.Scalar, _ elements: [Element],
        _ write: (inout ReportJSONWriter, Element) -> Void
    ) {
        bytes.append(UInt8(ascii: open))
        bytes.append(0x0A)
        indent += 1
        for (index, element) in elements.enumerated() {
            if index > 0 {
                bytes.append(UInt8(ascii: ","))
                bytes.append(0x0A)
            }
            writeIndent()
            write(&self, element)
        }
        bytes.append(0x0A)
        indent -= 1
        writeIndent()
        bytes.append(UInt8(ascii: close))
    }

    private mutating func writeIndent() {
        for _ in 0..<indent { bytes.append(contentsOf: "  ".utf8) }
    }

    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0..<0x20: representable = false
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func integer(_ value: some BinaryInteger) {
        bytes.append(contentsOf: value.description.utf8)
    }

    private mutating func boolean(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    private mutating func number<Value: BinaryFloatingPoint & CustomStringConvertible>(_ value: Value) {
        guard value.isFinite else {
            representable = false
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }
}
