import GripAnalysis

/// A file's name and contents, as the CLI read them from disk or from a zip.
public struct NamedFile: Sendable, Equatable {
    /// The name to report in errors (e.g. `session.zip/data_set_2.csv`).
    public var name: String
    /// The file's bytes.
    public var bytes: [UInt8]

    /// Creates a named file.
    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
}

extension TindeqExport {
    /// Reads one CSV export: a peak, endurance, RFD or critical-force test from the app, or a recording griptrack
    /// exported. No I/O: the caller reads the file.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents (UTF-8; CRLF or LF).
    ///   - fileName: The name to use in errors and in the result.
    /// - Returns: The typed import.
    /// - Throws: ``GripImportError`` naming the line and what is wrong; nothing is returned for a malformed file.
    public static func parse(_ bytes: [UInt8], fileName: String) throws(GripImportError) -> TindeqExport {
        let lines = try CSVText.lines(try utf8(bytes, file: fileName), file: fileName)
        guard let first = lines.first(where: { !$0.isBlank }) else {
            throw GripImportError(file: fileName, line: nil, "the file is empty")
        }
        if first.key == "date" && first.fields.count == 2 {
            return try parseGriptrack(lines, file: fileName)
        }
        guard first.key == "date", first.number == 1 else {
            if first.key == "time" || first.fields.first?.trimmingSpaces.isEmpty == true {
                throw GripImportError(
                    file: fileName, line: first.number,
                    "a repeaters data set without its info.csv: import the whole bundle (the .zip or its folder)")
            }
            throw GripImportError(
                file: fileName, line: first.number,
                "not a Tindeq export: the first line should name the fields, starting with `date` (found \"\(first.fields.first ?? "")\")")
        }
        let header = try tableHeader(lines, file: fileName)
        let names = Set(header.fields.map { $0.field.name.lowercased() })
        let test: TindeqTest
        if names.contains("rfd2080") || names.contains("intervalthreshold") {
            test = .rfd
        } else if names.contains("critical force") {
            test = .criticalForce
        } else if names.contains("max weight") {
            test = .peak
        } else if names.contains("work dur.") || names.contains("pause btw. reps") {
            throw GripImportError(
                file: fileName, line: 1,
                "the info.csv of a repeaters bundle: import the whole bundle (the .zip or its folder)")
        } else if names.contains("max") && names.contains("avg") {
            test = .endurance
        } else {
            throw GripImportError(
                file: fileName, line: 1,
                "unknown test: the fields name none of peak (max weight), endurance (max, avg), RFD (rfd2080) or critical force")
        }
        var export = try exportFromHeader(header, test: test, file: fileName)
        let body = try parseBody(lines, from: header.bodyStart, file: fileName)
        export.samples = body.samples
        export.figures.reps = body.reps
        export.figures.thresholdCrossings = body.crossings
        return export
    }

    /// Reads a repeaters bundle: `info.csv` (the protocol and the header fields) and its data sets, one per set.
    ///
    /// Each data set's series starts again near 0 s; set N+1 is placed after set N's last sample plus the bundle's
    /// `pause btw. sets`, so the recording keeps every set in order on one timeline.
    ///
    /// - Parameters:
    ///   - bundle: The zip's or folder's name (for the result).
    ///   - info: `info.csv`.
    ///   - dataSets: `data_set_1.csv`, `data_set_2.csv`, … in set order.
    /// - Returns: The typed import, test ``TindeqTest/repeaters``.
    /// - Throws: ``GripImportError`` naming the file inside the bundle and the line.
    public static func parseRepeaters(
        bundle: String, info: NamedFile, dataSets: [NamedFile]
    ) throws(GripImportError) -> TindeqExport {
        let lines = try CSVText.lines(try utf8(info.bytes, file: info.name), file: info.name)
        guard lines.first?.key == "date" else {
            throw GripImportError(file: info.name, line: 1, "not a repeaters info.csv: the first line should name the fields, starting with `date`")
        }
        let header = try tableHeader(lines, file: info.name)
        guard !dataSets.isEmpty else {
            throw GripImportError(file: bundle, line: nil, "no data_set_N.csv beside info.csv: the bundle has no force series")
        }
        var export = try exportFromHeader(header, test: .repeaters, file: info.name)
        export.fileName = bundle
        var pauseMicros: Int64 = 0
        if let pause = export.field("pause btw. sets"), case .value(let seconds) = ExportNumbers.figure(pause), seconds > 0,
            seconds < 86_400
        {
            pauseMicros = Int64((seconds * 1_000_000).rounded())
        }
        var samples: [ForceSample] = []
        for (index, dataSet) in dataSets.enumerated() {
            let setLines = try CSVText.lines(try utf8(dataSet.bytes, file: dataSet.name), file: dataSet.name)
            let body = try parseBody(setLines, from: 0, file: dataSet.name)
            let offset = samples.last.map { $0.micros + pauseMicros } ?? 0
            for sample in body.samples {
                samples.append(ForceSample(micros: offset + sample.micros, kilograms: sample.kilograms))
            }
            export.figures.reps += body.reps.map { RepFigure(set: index + 1, rep: $0.rep, averageKg: $0.averageKg, peakKg: $0.peakKg, medianKg: $0.medianKg) }
        }
        export.samples = samples
        return export
    }

    // MARK: - Header

    struct Header {
        /// Field, value and the line the value is on.
        var fields: [(field: ExportField, line: Int)]
        /// Index into the lines where the body starts.
        var bodyStart: Int
    }

    /// The app's header: a line of names, a line of values (fewer values than names: the rest are empty).
    static func tableHeader(_ lines: [CSVLine], file: String) throws(GripImportError) -> Header {
        let names = lines[0]
        guard lines.count > 1 else {
            throw GripImportError(file: file, line: names.number, "the line of values under the field names is missing")
        }
        let values = lines[1]
        if values.fields.count > names.fields.count {
            throw GripImportError(
                file: file, line: values.number,
                "\(values.fields.count) values for \(names.fields.count) field names")
        }
        let fields = names.fields.enumerated().map { index, name in
            (field: ExportField(name: name.trimmingSpaces, value: index < values.fields.count ? values.fields[index] : ""), line: values.number)
        }
        return Header(fields: fields, bodyStart: 2)
    }

    /// The common header fields, typed: date, tag, comment, unit and the figures of `test`.
    static func exportFromHeader(_ header: Header, test: TindeqTest, file: String) throws(GripImportError) -> TindeqExport {
        func entry(_ name: String) -> (field: ExportField, line: Int)? {
            header.fields.first { $0.field.name.lowercased() == name }
        }
        guard let date = entry("date") else {
            throw GripImportError(file: file, line: 1, "no `date` field")
        }
        let parsedDate: ExportDate
        if date.field.value.trimmingSpaces.isEmpty {
            throw GripImportError(file: file, line: date.line, "the date is empty: a recording needs the time it was made")
        }
        switch ExportDate.parse(date.field.value, order: test == .recording ? .yearMonthDay : .yearDayMonth) {
        case .success(let value): parsedDate = value
        case .failure(let problem): throw GripImportError(file: file, line: date.line, problem.message)
        }
        if let unit = entry("unit"), !["", "si", "kg"].contains(unit.field.value.trimmingSpaces.lowercased()) {
            throw GripImportError(
                file: file, line: unit.line,
                "unit \"\(unit.field.value)\": only kilogram (SI) exports can be imported; export in SI units in the app")
        }
        func figure(_ names: String...) throws(GripImportError) -> Double? {
            for name in names {
                guard let found = entry(name) else { continue }
                switch ExportNumbers.figure(found.field.value) {
                case .absent: return nil
                case .value(let value): return value
                case .invalid:
                    throw GripImportError(
                        file: file, line: found.line, "`\(found.field.name)` is not a number: \"\(found.field.value)\"")
                }
            }
            return nil
        }
        var figures = AppFigures()
        switch test {
        case .peak:
            figures.maxKg = try figure("max weight")
            figures.bodyWeightKg = try figure("body weight")
        case .endurance:
            figures.maxKg = try figure("max")
            figures.averageKg = try figure("avg")
            figures.durationSeconds = try figure("duration")
            figures.mvcKg = try figure("mvc")
        case .rfd:
            figures.rfd2080 = try figure("rfd2080")
            figures.rfdInterval = try figure("rfdinterval")
            figures.intervalTimeMillis = try figure("intervaltime (ms)", "intervaltime")
            figures.intervalThresholdKg = try figure("intervalthreshold")
        case .criticalForce:
            figures.criticalForceKg = try figure("critical force")
            figures.maxKg = try figure("max", "max weight")
        case .repeaters:
            figures.mvcKg = try figure("mvc")
        case .recording:
            figures.maxKg = try figure("max weight")
            figures.averageKg = try figure("avg weight")
        }
        func text(_ name: String) -> String? {
            guard let value = entry(name)?.field.value.trimmingSpaces, !value.isEmpty else { return nil }
            return value
        }
        return TindeqExport(
            fileName: file, source: test == .recording ? .griptrack : .tindeqApp, test: test, date: parsedDate,
            tag: text("tag"), comment: text("comment"), fields: header.fields.map(\.field), figures: figures, samples: [])
    }

    /// griptrack's export: `field,value` lines up to an empty line, then the series. `time origin (us)` puts the
    /// series back on the recording's own timeline, so an export imports to the very samples it was made from.
    static func parseGriptrack(_ lines: [CSVLine], file: String) throws(GripImportError) -> TindeqExport {
        var fields: [(field: ExportField, line: Int)] = []
        var index = 0
        while index < lines.count, !lines[index].isBlank, lines[index].key != "time" {
            let line = lines[index]
            guard line.fields.count == 2 else {
                throw GripImportError(file: file, line: line.number, "expected `field,value`, found \(line.fields.count) fields")
            }
            fields.append((ExportField(name: line.fields[0].trimmingSpaces, value: line.fields[1]), line.number))
            index += 1
        }
        var export = try exportFromHeader(Header(fields: fields, bodyStart: index), test: .recording, file: file)
        var origin: Int64 = 0
        if let entry = fields.first(where: { $0.field.name.lowercased() == GriptrackCSV.originField }) {
            guard let micros = Int64(entry.field.value.trimmingSpaces) else {
                throw GripImportError(file: file, line: entry.line, "`\(GriptrackCSV.originField)` is not a whole number of microseconds")
            }
            origin = micros
        }
        let body = try parseBody(lines, from: index, file: file)
        export.samples = []
        export.samples.reserveCapacity(body.samples.count)
        for sample in body.samples {
            let (micros, overflow) = sample.micros.addingReportingOverflow(origin)
            guard !overflow else {
                throw GripImportError(file: file, line: nil, "`\(GriptrackCSV.originField)` puts the samples out of range")
            }
            export.samples.append(ForceSample(micros: micros, kilograms: sample.kilograms))
        }
        return export
    }

    // MARK: - Body

    struct Body {
        var samples: [ForceSample] = []
        var reps: [RepFigure] = []
        var crossings: [ThresholdCrossing] = []
    }

    /// Everything after the header: optional blocks (a repeaters data set's Avg/Peak table, critical force's median
    /// values and threshold crossings), then `time,weight` and one `time,weight` line per sample.
    static func parseBody(_ lines: [CSVLine], from start: Int, file: String) throws(GripImportError) -> Body {
        var body = Body()
        var index = start
        var columns: [Int]? = nil
        // The blocks before the series.
        while index < lines.count {
            let line = lines[index]
            if line.isBlank {
                columns = nil
                index += 1
                continue
            }
            let names = line.fields.map { $0.trimmingSpaces.lowercased() }
            if names.count >= 2 && names[0] == "time" && names[1] == "weight" { break }
            if names[0].isEmpty {
                // `,Avg,Rep 1,Rep 2`: the columns of the Avg/Peak rows that follow (0 = the whole set).
                columns = line.fields.dropFirst().enumerated().map { offset, name in
                    let lowered = name.trimmingSpaces.lowercased()
                    if lowered.hasPrefix("rep "), let number = Int(String(lowered.dropFirst(4)).trimmingSpaces), number > 0 {
                        return number
                    }
                    return lowered.contains("avg") ? 0 : offset
                }
            } else if let repColumns = columns, names[0] == "avg" || names[0] == "peak" {
                for (offset, raw) in line.fields.dropFirst().enumerated() where offset < repColumns.count {
                    let value: Double?
                    switch ExportNumbers.figure(raw) {
                    case .absent: value = nil
                    case .value(let number): value = number
                    case .invalid:
                        throw GripImportError(file: file, line: line.number, "\(line.fields[0]) of column \(offset + 2) is not a number: \"\(raw)\"")
                    }
                    let rep = repColumns[offset]
                    var figure = body.reps.first { $0.rep == rep } ?? RepFigure(set: 1, rep: rep)
                    if names[0] == "avg" { figure.averageKg = value } else { figure.peakKg = value }
                    body.reps.removeAll { $0.rep == rep }
                    body.reps.append(figure)
                }
                body.reps.sort { $0.rep < $1.rep }
            } else if names[0] == "median values" {
                index = try medianValues(lines, at: index, into: &body, file: file)
                continue
            } else if names[0] == "threshold time" {
                index = try crossings(lines, at: index + 1, into: &body, file: file)
                continue
            }
            // Anything else before the series is a field this version of griptrack does not know: kept out, not fatal.
            index += 1
        }
        guard index < lines.count else {
            let last = lines.last?.number ?? 1
            throw GripImportError(file: file, line: last, "the file ends before the `time,weight` line: there is no force series")
        }
        index += 1
        var previous: (micros: Int64, text: String, line: Int)? = nil
        body.samples.reserveCapacity(lines.count - index)
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.isBlank { continue }
            guard line.fields.count == 2 else {
                throw GripImportError(file: file, line: line.number, "expected `time,weight`, found \(line.fields.count) fields")
            }
            guard let micros = ExportNumbers.micros(line.fields[0]) else {
                let what = line.fields[0].trimmingSpaces.isEmpty ? "the time is empty" : "time \"\(line.fields[0])\" is not a number of seconds"
                throw GripImportError(file: file, line: line.number, what)
            }
            guard let kilograms = ExportNumbers.kilograms(line.fields[1]) else {
                let what = line.fields[1].trimmingSpaces.isEmpty ? "the weight is empty" : "weight \"\(line.fields[1])\" is not a finite number"
                throw GripImportError(file: file, line: line.number, what)
            }
            if let previous, micros < previous.micros {
                throw GripImportError(
                    file: file, line: line.number,
                    "time goes back: \(line.fields[0].trimmingSpaces) s after \(previous.text) s on line \(previous.line)")
            }
            previous = (micros, line.fields[0].trimmingSpaces, line.number)
            body.samples.append(ForceSample(micros: micros, kilograms: kilograms))
        }
        guard !body.samples.isEmpty else {
            throw GripImportError(file: file, line: lines.last?.number ?? 1, "the `time,weight` series has no samples")
        }
        return body
    }

    /// `median values` followed by the values on the same line, or one per line below it.
    private static func medianValues(_ lines: [CSVLine], at start: Int, into body: inout Body, file: String) throws(GripImportError) -> Int {
        var values: [Double] = []
        var index = start
        func take(_ raw: String, line: Int) throws(GripImportError) {
            switch ExportNumbers.figure(raw) {
            case .absent: return
            case .value(let value): values.append(value)
            case .invalid: throw GripImportError(file: file, line: line, "median value \"\(raw)\" is not a number")
            }
        }
        for raw in lines[start].fields.dropFirst() { try take(raw, line: lines[start].number) }
        index += 1
        if values.isEmpty {
            while index < lines.count, !lines[index].isBlank, lines[index].fields.count == 1,
                ExportNumbers.figure(lines[index].fields[0]) != .invalid
            {
                try take(lines[index].fields[0], line: lines[index].number)
                index += 1
            }
        }
        for (offset, value) in values.enumerated() {
            if let existing = body.reps.firstIndex(where: { $0.rep == offset + 1 }) {
                body.reps[existing].medianKg = value
            } else {
                body.reps.append(RepFigure(set: 1, rep: offset + 1, medianKg: value))
            }
        }
        return index
    }

    /// `threshold time, threshold weight` pairs, one per line, up to an empty line or the series.
    private static func crossings(_ lines: [CSVLine], at start: Int, into body: inout Body, file: String) throws(GripImportError) -> Int {
        var index = start
        while index < lines.count, !lines[index].isBlank, lines[index].key != "time" {
            let line = lines[index]
            guard line.fields.count == 2, case .value(let time) = ExportNumbers.figure(line.fields[0]),
                case .value(let weight) = ExportNumbers.figure(line.fields[1])
            else {
                throw GripImportError(file: file, line: line.number, "expected a `threshold time,threshold weight` pair of numbers")
            }
            body.crossings.append(ThresholdCrossing(timeSeconds: time, weightKg: weight))
            index += 1
        }
        return index
    }

    /// The file's bytes once they are known to be UTF-8, or the first bad byte's line.
    static func utf8(_ bytes: [UInt8], file: String) throws(GripImportError) -> [UInt8] {
        if String(validating: bytes, as: UTF8.self) != nil { return bytes }
        // Find the line of the first invalid sequence, for the message.
        var line = 1
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            if String(validating: bytes[start..<index], as: UTF8.self) == nil { break }
            line += 1
            start = index + 1
        }
        throw GripImportError(file: file, line: line, "not UTF-8 text: is this a CSV export?")
    }
}
