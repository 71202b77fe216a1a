import GripAnalysis
import GripWire

/// A file's name and contents, as the CLI read them from disk or from a zip.
package struct NamedFile: Sendable, Equatable {
    /// The name to report in errors (e.g. `session.zip/data_set_2.csv`).
    package var name: String
    /// The file's bytes.
    package var bytes: [UInt8]

    /// Creates a named file.
    package init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
}

extension TindeqExport {
    /// Reads one CSV export held in memory, keeping its samples in ``samples``. No I/O: the caller reads the file.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents (UTF-8; CRLF or LF).
    ///   - fileName: The name to use in errors and in the result.
    /// - Returns: The typed import.
    /// - Throws: ``GripImportError`` naming the line and what is wrong; nothing is returned for a malformed file.
    package static func parse(_ bytes: [UInt8], fileName: String) throws(GripImportError) -> TindeqExport {
        var samples: [ForceSample] = []
        var export = try inMemory { () throws in
            try read(InMemoryBytes(bytes), fileName: fileName) { samples.append($0) }
        }
        export.samples = samples
        return export
    }

    /// Reads one CSV export as its bytes arrive: a peak, endurance, RFD or critical-force test from the app, or a
    /// recording griptrack exported. Each sample is handed to `sample` as soon as it is read and checked, and is not
    /// kept, so memory does not grow with the file (``samples`` stays empty; ``series`` sums the samples up).
    ///
    /// - Parameters:
    ///   - source: The file's bytes, a chunk at a time.
    ///   - fileName: The name to use in errors and in the result.
    ///   - interruption: Called where the export lists a link drop (``linkDrops``), before the first sample after it.
    ///   - sample: Called with every sample in time order, on the file's timeline.
    /// - Returns: The typed import, without its samples.
    /// - Throws: ``GripImportError`` naming the line and what is wrong, or what `source` threw. Samples already
    ///   handed to `sample` belong to a file that is refused.
    package static func read<Source: ImportByteSource>(
        _ source: Source, fileName: String, interruption: () -> Void = {}, sample: (ForceSample) -> Void
    ) throws -> TindeqExport {
        var lines = CSVLines(source, file: fileName)
        var first: CSVLine? = nil
        while let line = try lines.next() {
            if !line.isBlank {
                first = line
                break
            }
        }
        guard let first else { throw GripImportError(file: fileName, line: nil, "the file is empty") }
        if first.key == "date" && first.withoutTrailingEmptyFields.count == 2 {
            return try readGriptrack(first: first, &lines, file: fileName, interruption: interruption, sample: sample)
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
        let header = try tableHeader(names: first, values: try lines.next(), file: fileName)
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
        var check = SeriesCheck(device: TindeqProgressor())
        var head = StaleHead()
        let blocks = try readBody(&lines, file: fileName, check: &check, offset: 0, head: &head, sample: sample)
        export.droppedHeads = head.dropped.map { [$0] } ?? []
        export.series = check.summary
        export.figures.reps = blocks.reps
        export.figures.thresholdCrossings = blocks.crossings
        return export
    }

    /// Reads a repeaters bundle: `info.csv` (the protocol and the header fields) and its data sets, one per set.
    ///
    /// Each data set's series starts again near 0 s; set N+1 is placed after set N's last sample plus the bundle's
    /// `pause btw. sets`, so the recording keeps every set in order on one timeline. The pause holds no samples: the
    /// end of each set is an interruption (``linkDrops``), so an effort still under way when the app stopped the set
    /// ends open there instead of running through the pause into the next set.
    ///
    /// - Parameters:
    ///   - bundle: The zip's or folder's name (for the result).
    ///   - info: `info.csv`.
    ///   - dataSets: `data_set_1.csv`, `data_set_2.csv`, … in set order.
    /// - Returns: The typed import, test ``TindeqTest/repeaters``, with its samples.
    /// - Throws: ``GripImportError`` naming the file inside the bundle and the line.
    package static func parseRepeaters(
        bundle: String, info: NamedFile, dataSets: [NamedFile]
    ) throws(GripImportError) -> TindeqExport {
        var samples: [ForceSample] = []
        var export = try inMemory { () throws in
            try readRepeaters(bundle: bundle, info: info, dataSets: dataSets) { samples.append($0) }
        }
        export.samples = samples
        return export
    }

    /// ``parseRepeaters(bundle:info:dataSets:)`` handing each sample to `sample` instead of keeping it, and calling
    /// `interruption` between sets.
    ///
    /// - Throws: ``GripImportError`` naming the file inside the bundle and the line.
    package static func readRepeaters(
        bundle: String, info: NamedFile, dataSets: [NamedFile], interruption: () -> Void = {},
        sample: (ForceSample) -> Void
    ) throws(GripImportError) -> TindeqExport {
        let lines = try CSVText.lines(try utf8(info.bytes, file: info.name), file: info.name)
        guard let names = lines.first, names.key == "date" else {
            throw GripImportError(file: info.name, line: 1, "not a repeaters info.csv: the first line should name the fields, starting with `date`")
        }
        let header = try tableHeader(names: names, values: lines.count > 1 ? lines[1] : nil, file: info.name)
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
        var check = SeriesCheck(device: TindeqProgressor())
        for (index, dataSet) in dataSets.enumerated() {
            var setLines = CSVLines(InMemoryBytes(dataSet.bytes), file: dataSet.name)
            let offset: Int64
            if let last = check.summary.last {
                // The next set starts after the last one and the pause: checked, since the times are the file's.
                let (sum, overflow) = last.micros.addingReportingOverflow(pauseMicros)
                guard !overflow else {
                    throw GripImportError(
                        file: dataSet.name, line: nil,
                        "the set cannot follow the one before: its times are out of range (the file is damaged)")
                }
                offset = sum
                export.linkDrops.append(last.micros)
                interruption()
            } else {
                offset = 0
            }
            var head = StaleHead()
            let blocks = try inMemory { () throws in
                try readBody(&setLines, file: dataSet.name, check: &check, offset: offset, head: &head, sample: sample)
            }
            if let dropped = head.dropped { export.droppedHeads.append(dropped) }
            export.figures.reps += blocks.reps.map {
                RepFigure(set: index + 1, rep: $0.rep, averageKg: $0.averageKg, peakKg: $0.peakKg, medianKg: $0.medianKg)
            }
        }
        export.series = check.summary
        return export
    }

    /// Runs a read whose source cannot fail (bytes in memory), so only ``GripImportError`` can come out of it.
    private static func inMemory<T>(_ body: () throws -> T) throws(GripImportError) -> T {
        do {
            return try body()
        } catch let error as GripImportError {
            throw error
        } catch {
            preconditionFailure("bytes in memory cannot fail to read: \(error)")
        }
    }

    // MARK: - Header

    struct Header {
        /// Field, value and the line the value is on.
        var fields: [(field: ExportField, line: Int)]
    }

    /// The app's header: a line of names, a line of values (fewer values than names: the rest are empty).
    static func tableHeader(names: CSVLine, values: CSVLine?, file: String) throws(GripImportError) -> Header {
        guard let values else {
            throw GripImportError(file: file, line: names.number, "the line of values under the field names is missing")
        }
        // A spreadsheet that re-saved the file may have padded both lines with empty columns.
        let nameFields = names.withoutTrailingEmptyFields
        let valueFields = values.fields.count > nameFields.count ? values.withoutTrailingEmptyFields : values.fields
        if valueFields.count > nameFields.count {
            throw GripImportError(
                file: file, line: values.number,
                "\(values.fields.count) values for \(nameFields.count) field names")
        }
        let fields = nameFields.enumerated().map { index, name in
            (field: ExportField(name: name.trimmingSpaces, value: index < valueFields.count ? valueFields[index] : ""), line: values.number)
        }
        return Header(fields: fields)
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
    static func readGriptrack<Source: ImportByteSource>(
        first: CSVLine, _ lines: inout CSVLines<Source>, file: String, interruption: () -> Void,
        sample: (ForceSample) -> Void
    ) throws -> TindeqExport {
        var fields: [(field: ExportField, line: Int)] = []
        var next: CSVLine? = first
        while let line = next, !line.isBlank, line.key != "time" {
            let pair = line.withoutTrailingEmptyFields
            guard pair.count <= 2 else {
                throw GripImportError(file: file, line: line.number, "expected `field,value`, found \(line.fields.count) fields")
            }
            fields.append((ExportField(name: pair[0].trimmingSpaces, value: pair.count == 2 ? pair[1] : ""), line.number))
            next = try lines.next()
        }
        if let next { lines.pushBack(next) }
        var export = try exportFromHeader(Header(fields: fields), test: .recording, file: file)
        var origin: Int64 = 0
        var originLine: Int? = nil
        if let entry = fields.first(where: { $0.field.name.lowercased() == GriptrackCSV.originField }) {
            guard let micros = Int64(entry.field.value.trimmingSpaces) else {
                throw GripImportError(file: file, line: entry.line, "`\(GriptrackCSV.originField)` is not a whole number of microseconds")
            }
            origin = micros
            originLine = entry.line
        }
        if let entry = fields.first(where: { $0.field.name.lowercased() == GriptrackCSV.linkDropsField }) {
            for word in entry.field.value.split(separator: " ", omittingEmptySubsequences: true) {
                guard let micros = Int64(word) else {
                    throw GripImportError(
                        file: file, line: entry.line,
                        "`\(GriptrackCSV.linkDropsField)` holds \"\(word)\", not a whole number of microseconds")
                }
                export.linkDrops.append(micros)
            }
        }
        var check = SeriesCheck(device: Self.device(named: export.field("profile")))
        check.originLine = originLine
        var drops = LinkDropCursor(export.linkDrops)
        // griptrack's own export never starts again: time going back there is damage.
        var head = StaleHead(window: 0)
        let blocks = try readBody(&lines, file: file, check: &check, offset: origin, head: &head) { next in
            if drops.interrupts(before: next.micros) { interruption() }
            sample(next)
        }
        export.series = check.summary
        export.figures.reps = blocks.reps
        export.figures.thresholdCrossings = blocks.crossings
        return export
    }

    /// The device profile a griptrack export names (by name or identifier), whose limits its samples must keep;
    /// `nil` for a profile this version does not know.
    static func device(named profile: String?) -> (any DeviceProfile)? {
        guard let profile = profile?.trimmingSpaces, !profile.isEmpty else { return nil }
        return DeviceProfiles.all.first { $0.name == profile || $0.identifier == profile }
    }

    // MARK: - Body

    struct Blocks {
        var reps: [RepFigure] = []
        var crossings: [ThresholdCrossing] = []
    }

    /// The first samples of an app export's series, held back until the series has shown it does not start again:
    /// the app writes its buffer from before a test first, stamped a few seconds in, and then the test from near 0 s.
    /// Only a time going back within the first `window` samples is taken for that; later, it is damage.
    struct StaleHead {
        struct Held {
            var micros: Int64
            var kilograms: Float
            var timeText: String
            var weightText: String
            var line: Int
        }

        /// How many samples are held back at most.
        let window: Int
        private(set) var held: [Held] = []
        /// Whether the series is past its head (the window filled, or a restart already dropped).
        private(set) var settled = false
        private(set) var dropped: DroppedHead?

        init(window: Int = 256) {
            self.window = window
            settled = window == 0
        }

        /// Takes the next sample; returns the samples that are now known to belong to the series, in order.
        mutating func take(_ next: Held, file: String) -> [Held] {
            if settled { return [next] }
            // Back to before the head's first sample: the series starts again. A time that goes back less than that is
            // out of order, and refused as damage when the head is released.
            if let first = held.first, let last = held.last, next.micros < first.micros {
                dropped = DroppedHead(file: file, count: held.count, lines: first.line...last.line, restartLine: next.line)
                held = []
                settled = true
                return [next]
            }
            held.append(next)
            if held.count < window { return [] }
            return release()
        }

        /// Ends the head: whatever is held belongs to the series.
        mutating func release() -> [Held] {
            settled = true
            defer { held = [] }
            return held
        }
    }

    /// Everything after the header: optional blocks (a repeaters data set's Avg/Peak table, critical force's median
    /// values and threshold crossings), then `time,weight` and one `time,weight` line per sample, each checked by
    /// `check` and handed to `sample` at `offset` plus its time. `head` drops a stale head the series starts again
    /// after.
    static func readBody<Source: ImportByteSource>(
        _ lines: inout CSVLines<Source>, file: String, check: inout SeriesCheck, offset: Int64, head: inout StaleHead,
        sample: (ForceSample) -> Void
    ) throws -> Blocks {
        var body = Blocks()
        var columns: [Int]? = nil
        var foundSeries = false
        // The blocks before the series.
        while let line = try lines.next() {
            if line.isBlank {
                columns = nil
                continue
            }
            let names = line.fields.map { $0.trimmingSpaces.lowercased() }
            if names.count >= 2 && names[0] == "time" && names[1] == "weight" {
                foundSeries = true
                break
            }
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
                try medianValues(line, &lines, into: &body, file: file)
            } else if names[0] == "threshold time" {
                try crossings(&lines, into: &body, file: file)
            }
            // Anything else before the series is a field this version of griptrack does not know: kept out, not fatal.
        }
        guard foundSeries else {
            throw GripImportError(
                file: file, line: max(1, lines.lastNumber), "the file ends before the `time,weight` line: there is no force series")
        }
        let before = check.summary.count
        while let line = try lines.next() {
            if line.isBlank { continue }
            var fields = line.withoutTrailingEmptyFields
            if fields.count == 1, line.fields.count >= 2 { fields = Array(line.fields.prefix(2)) }
            guard fields.count == 2 else {
                throw GripImportError(file: file, line: line.number, "expected `time,weight`, found \(line.fields.count) fields")
            }
            guard let micros = ExportNumbers.micros(fields[0]) else {
                let what = fields[0].trimmingSpaces.isEmpty ? "the time is empty" : "time \"\(fields[0])\" is not a number of seconds"
                throw GripImportError(file: file, line: line.number, what)
            }
            guard let kilograms = ExportNumbers.kilograms(fields[1]) else {
                let what = fields[1].trimmingSpaces.isEmpty ? "the weight is empty" : "weight \"\(fields[1])\" is not a finite number"
                throw GripImportError(file: file, line: line.number, what)
            }
            let next = StaleHead.Held(
                micros: micros, kilograms: kilograms, timeText: fields[0].trimmingSpaces,
                weightText: fields[1].trimmingSpaces, line: line.number)
            for taken in head.take(next, file: file) {
                sample(try check.accept(taken, offset: offset, file: file))
            }
        }
        for taken in head.release() {
            sample(try check.accept(taken, offset: offset, file: file))
        }
        guard check.summary.count > before else {
            throw GripImportError(file: file, line: max(1, lines.lastNumber), "the `time,weight` series has no samples")
        }
        return body
    }

    /// `median values` followed by the values on the same line, or one per line below it.
    private static func medianValues<Source: ImportByteSource>(
        _ first: CSVLine, _ lines: inout CSVLines<Source>, into body: inout Blocks, file: String
    ) throws {
        var values: [Double] = []
        func take(_ raw: String, line: Int) throws(GripImportError) {
            switch ExportNumbers.figure(raw) {
            case .absent: return
            case .value(let value): values.append(value)
            case .invalid: throw GripImportError(file: file, line: line, "median value \"\(raw)\" is not a number")
            }
        }
        for raw in first.fields.dropFirst() { try take(raw, line: first.number) }
        if values.isEmpty {
            while let line = try lines.next() {
                guard !line.isBlank, line.fields.count == 1, ExportNumbers.figure(line.fields[0]) != .invalid else {
                    lines.pushBack(line)
                    break
                }
                try take(line.fields[0], line: line.number)
            }
        }
        for (offset, value) in values.enumerated() {
            if let existing = body.reps.firstIndex(where: { $0.rep == offset + 1 }) {
                body.reps[existing].medianKg = value
            } else {
                body.reps.append(RepFigure(set: 1, rep: offset + 1, medianKg: value))
            }
        }
    }

    /// `threshold time, threshold weight` pairs, one per line, up to an empty line or the series.
    private static func crossings<Source: ImportByteSource>(
        _ lines: inout CSVLines<Source>, into body: inout Blocks, file: String
    ) throws {
        while let line = try lines.next() {
            guard !line.isBlank, line.key != "time" else {
                lines.pushBack(line)
                return
            }
            let pair = line.withoutTrailingEmptyFields
            guard pair.count == 2, case .value(let time) = ExportNumbers.figure(pair[0]),
                case .value(let weight) = ExportNumbers.figure(pair[1])
            else {
                throw GripImportError(file: file, line: line.number, "expected a `threshold time,threshold weight` pair of numbers")
            }
            body.crossings.append(ThresholdCrossing(timeSeconds: time, weightKg: weight))
        }
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
