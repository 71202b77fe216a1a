import Foundation
import GripAnalysis
import GripProtocol
import GripStore

/// griptrackd's database, through its socket (protocol 1.2: LIST, SHOW, READ, STATS, HISTORY, PLAN, DELETE, PRO).
/// The daemon applies its own plan and authorization; an `ERROR` reply's `code` picks the exit code.
final class DaemonLibrary: RecordingLibrary {
    let connection: DaemonConnection
    let database: DatabaseChoice
    /// The last SHOW reply's recording and its `imported` (protocol 1.9), so the comparison comes from the reply
    /// `show(_:)` read rather than a second SHOW.
    private var lastShown: (id: RecordingID, imported: ImportComparison?)?

    /// - Throws: `DaemonClientError.protocolTooOld` for a daemon older than protocol 1.2.
    init(connection: DaemonConnection) throws(DaemonClientError) {
        try connection.require(minor: 2)
        self.connection = connection
        database = DatabaseChoice(kind: .daemon, path: connection.version.database, socket: connection.path)
    }

    func plan() throws -> Plan { try ask(.plan) { if case .plan(let reply) = $0 { reply } else { nil } }.plan }

    func list(limit: Int?, filter: RecordingFilter) throws -> (RecordingList, Plan) {
        // LIST has no filter fields: a filtered list asks for every recording the plan shows and filters here.
        let reply = try ask(.list(limit: filter.isEmpty ? limit : nil)) { if case .list(let reply) = $0 { reply } else { nil } }
        let plan = try plan()
        let damaged = (reply.damaged ?? []).map { DamagedRecording(id: $0.id, reason: $0.reason) }
        var visible = try reply.recordings.map { try $0.row() }
        var hidden = reply.hidden
        if !filter.isEmpty {
            let matching = visible.filter(filter.matches)
            visible = Array(matching.prefix(limit ?? matching.count))
            hidden = matching.count - visible.count
        }
        return (RecordingList(visible: visible, hiddenCount: hidden, damaged: damaged), plan)
    }

    func show(_ id: RecordingID) throws -> (RecordingRow, [StoredEffort]) {
        let reply = try ask(.show(id: id.rawValue), Self.show)
        lastShown = (id, reply.imported)
        return (try reply.recording.row(), reply.efforts.map(\.stored))
    }

    /// The daemon compares (`SHOW`'s `imported`, computed by GripStore as a local library does); a daemon older than
    /// protocol 1.9 sends none.
    func importComparison(of row: RecordingRow, efforts: [StoredEffort], samples: [StoredSample]) throws -> ImportComparison? {
        if let lastShown, lastShown.id == row.id { return lastShown.imported }
        return try ask(.show(id: row.id.rawValue), Self.show).imported
    }

    func samples(of id: RecordingID) throws -> [StoredSample] {
        var samples: [StoredSample] = []
        var next: Int? = 0
        while let from = next {
            let page = try ask(.read(id: id.rawValue, from: from)) { if case .read(let reply) = $0 { reply } else { nil } }
            guard page.t.count == page.kg.count else { throw CLIExit.error.fail("griptrackd sent a READ page with \(page.t.count) times and \(page.kg.count) forces") }
            for (time, force) in zip(page.t, page.kg) {
                samples.append(StoredSample(micros: micros(time), kilograms: force))
            }
            next = page.next
        }
        return samples
    }

    func stats() throws -> (RecordingStatistics, Plan) {
        let reply = try ask(.stats) { if case .stats(let reply) = $0 { reply } else { nil } }
        let stats = RecordingStatistics(
            recordings: reply.recordings, efforts: reply.efforts, samples: reply.samples, maxKilograms: reply.maxKg,
            averageKilograms: reply.avgKg, first: reply.first.map(Date.init(timeIntervalSince1970:)),
            last: reply.last.map(Date.init(timeIntervalSince1970:)))
        return (stats, try plan())
    }

    func history() throws -> [AnalysedRecording] {
        try ask(.history) { if case .history(let reply) = $0 { reply } else { nil } }.recordings.map { item in
            AnalysedRecording(
                id: RecordingID(rawValue: item.id), startedAt: Date(timeIntervalSince1970: item.startedAt),
                recording: Recording(
                    startMicros: item.startUs, endMicros: item.endUs, efforts: item.efforts.map { Effort($0.stored) },
                    falseStartsDropped: 0))
        }
    }

    func row(_ id: RecordingID) throws -> RecordingRow? {
        switch try reply(.show(id: id.rawValue), Self.show) {
        case .success(let reply): return try reply.recording.row()
        case .failure(let refusal) where refusal.code == "pro_required": return nil  // hidden: delete may still free it
        case .failure(let refusal): throw Self.exit(for: refusal).fail(refusal.message ?? "griptrackd refused the request")
        }
    }

    func delete(_ id: RecordingID) throws {
        _ = try ask(.delete(id: id.rawValue)) { if case .delete(let reply) = $0 { reply } else { nil } }
    }

    /// LABEL (protocol 1.6; 1.8 with a protocol): the daemon's recorder writes the change, as it does every store
    /// change. An older daemon would ignore the protocol fields and store nothing of them, so they need 1.8.
    func describe(_ id: RecordingID, _ change: RecordingDescription) throws -> RecordingRow {
        do {
            let protocolGiven = change.protocolNotation != nil || change.protocolMaxKilograms != nil
            try connection.require(minor: protocolGiven ? 8 : 6)
        } catch {
            throw error.exit.fail(error.description)
        }
        return try ask(.label(id: id.rawValue, change)) { if case .label(let reply) = $0 { reply } else { nil } }.recording.row()
    }

    func grant(note: String?, expires: Date?) throws -> Plan {
        _ = try ask(.pro(.grant(note: note, expires: expires)), Self.proChange)
        return try plan()
    }

    func revoke(note: String?) throws -> (removed: Bool?, plan: Plan) {
        _ = try ask(.pro(.revoke), Self.proChange)
        return (nil, try plan())
    }

    /// Sends PRO import with `jws` in parts that fit a request line; the daemon verifies and stores it.
    func importSigned(_ jws: String, kind: SignedDataImportKind) throws -> DaemonMessage.ImportReply {
        let part = 3000
        var rest = Substring(jws)
        while rest.utf8.count > part {
            let cut = rest.index(rest.startIndex, offsetBy: part)
            try send(.pro(.importSigned(data: String(rest[..<cut]), more: true, kind: kind)))
            rest = rest[cut...]
        }
        return try ask(.pro(.importSigned(data: String(rest), more: false, kind: kind))) {
            if case .proImport(let reply) = $0 { reply } else { nil }
        }
    }

    // MARK: - Requests

    private static func show(_ message: DaemonMessage) -> DaemonMessage.ShowReply? {
        if case .show(let reply) = message { reply } else { nil }
    }

    private static func proChange(_ message: DaemonMessage) -> DaemonMessage.ProReply? {
        if case .pro(let reply) = message { reply } else { nil }
    }

    private func send(_ request: DaemonRequest) throws {
        do {
            try connection.send(request)
        } catch {
            throw error.exit.fail(error.description)
        }
    }

    /// Sends `request` and returns its reply (the first line `extract` takes); an ERROR exits with the code its
    /// `code` names.
    private func ask<Reply>(_ request: DaemonRequest, _ extract: (DaemonMessage) -> Reply?) throws -> Reply {
        switch try reply(request, extract) {
        case .success(let reply): return reply
        case .failure(let refusal): throw Self.exit(for: refusal).fail(refusal.message ?? "griptrackd refused the request")
        }
    }

    /// Sends `request` and reads its reply, or the ERROR that answers it. Lines of other classes (a watcher's
    /// events) are skipped.
    private func reply<Reply>(_ request: DaemonRequest, _ extract: (DaemonMessage) -> Reply?) throws -> Result<Reply, Header> {
        try send(request)
        while true {
            let next: (message: DaemonMessage, line: String)?
            do {
                next = try connection.next()
            } catch {
                throw error.exit.fail(error.description)
            }
            guard let next else { throw DaemonClientError.closed.exit.fail(DaemonClientError.closed.description) }
            if case .error(let problem) = next.message {
                return .failure(Header(class: "ERROR", message: problem.message, code: problem.code?.rawValue))
            }
            if let reply = extract(next.message) { return .success(reply) }
        }
    }

    /// The exit code of an ERROR reply (docs/cli.md): refused 4, Pro required 3, bad value 2, otherwise 1.
    static func exit(for error: Header) -> CLIExit {
        if error.code == nil, error.message?.hasPrefix("not authorized") == true { return .unavailable }
        return switch error.code {
        case "not_authorized": .unavailable
        case "pro_required": .proRequired
        case "invalid": .usage
        case "rejected": .invalidInput
        default: .error
        }
    }

    struct Header: Error {
        var `class`: String
        var message: String?
        var code: String?
    }
}

/// Seconds from a daemon reply as µs. A value no recording can have (NaN, ±∞, beyond ±292 000 years) becomes 0
/// instead of trapping: the reply came over a socket and is input like any other.
private func micros(_ seconds: Double) -> Int64 { Int64(exactly: (seconds * 1_000_000).rounded()) ?? 0 }

extension DaemonMessage.PlanReply {
    var plan: Plan {
        Plan(isPro: pro, tier: tier, source: source, reason: reason, expires: expires.map(Date.init(timeIntervalSince1970:)),
             stored: stored, limit: limit, freeStorage: storage, provenance: provenance, warning: warning)
    }
}

extension DaemonMessage.RecordingObject {
    /// The row as the local store would give it.
    func row() throws -> RecordingRow {
        guard let uuid = UUID(uuidString: uuid), let state = RecordingState(rawValue: state) else {
            throw CLIExit.error.fail("griptrackd sent recording \(id) with a uuid or state this client cannot read")
        }
        return RecordingRow(
            id: RecordingID(rawValue: id), uuid: uuid, startedAt: Date(timeIntervalSince1970: startedAt),
            endedAt: endedAt.map(Date.init(timeIntervalSince1970:)), device: device, profile: profile,
            hand: hand.flatMap { Hand(rawValue: $0) }, label: label, state: state, maxKilograms: maxKg.map(Double.init),
            averageKilograms: avgKg.map(Double.init), sampleCount: samples, effortCount: efforts,
            setup: RecordingSetup(
                athlete: athlete, grip: grip, edgeMillimetres: edgeMm, bodyWeightKilograms: bodyWeightKg,
                protocolNotation: `protocol`, protocolMaxKilograms: protocolMaxKg),
            correction: ForceCorrection(storedScale: correctionScale, offsetKilograms: correctionOffsetKg))
    }
}

extension DaemonMessage.EffortObject {
    var stored: StoredEffort {
        StoredEffort(
            index: index, startMicros: micros(start), endMicros: micros(end), peakKilograms: Double(peakKg),
            meanKilograms: Double(meanKg), durationMicros: micros(duration), timeToPeakMicros: micros(timeToPeak),
            rfdKilogramsPerSecond: rfdKgS, impulseKilogramSeconds: impulseKgS, baselineKilograms: Double(baselineKg),
            isOpenStart: openStart ?? false, isOpen: open)
    }
}
