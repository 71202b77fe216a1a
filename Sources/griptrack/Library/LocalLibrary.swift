import Foundation
import GripAnalysis
import GripProtocol
import GripStore

/// A database file the command opens itself: the personal database, or `--db PATH`.
struct LocalLibrary: RecordingLibrary {
    let database: DatabaseChoice
    let session: Session

    init(common: CommonOptions, database: DatabaseChoice) throws {
        self.database = database
        session = try common.session()
    }

    private var store: RecordingStore { session.store }

    func plan() throws -> Plan {
        let status = try session.status()
        // The audit log says whether a sync brought an App Store Pro; a log that cannot be read leaves the line out.
        let audit = (try? session.store.auditLog(limit: 50)) ?? []
        return Plan(status, provenance: ProProvenance.line(source: status.access.source.rawValue, audit: audit))
    }

    func list(limit: Int?, filter: RecordingFilter) throws -> (RecordingList, Plan) {
        let plan = try plan()
        guard let visibleLimit = plan.visibleLimit, !filter.isEmpty else {
            let cap = [limit, plan.visibleLimit].compactMap { $0 }.min()
            return (try storeCall { () throws(GripStoreError) in try store.listRecordings(limit: cap, filter: filter) }, plan)
        }
        // The free plan filters what it shows: a filter never brings back a recording the plan hides.
        var list = try storeCall { () throws(GripStoreError) in try store.listRecordings(limit: visibleLimit) }
        list.visible = list.visible.filter(filter.matches)
        if let limit { list.visible = Array(list.visible.prefix(limit)) }
        return (list, plan)
    }

    func show(_ id: RecordingID) throws -> (RecordingRow, [StoredEffort]) {
        let row = try visibleRow(id)
        return (row, try storeCall { () throws(GripStoreError) in try store.efforts(of: id) })
    }

    func samples(of id: RecordingID) throws -> [StoredSample] {
        _ = try visibleRow(id)
        return try storeCall { () throws(GripStoreError) in try store.samples(of: id) }
    }

    func importComparison(of row: RecordingRow, efforts: [StoredEffort], samples: [StoredSample]) throws -> ImportComparison? {
        try storeCall { () throws(GripStoreError) in
            try store.importComparison(of: row, efforts: efforts, samples: samples)
        }
    }

    func stats() throws -> (RecordingStatistics, Plan) {
        let plan = try plan()
        return (try storeCall { () throws(GripStoreError) in try store.statistics(limit: plan.visibleLimit) }, plan)
    }

    func history() throws -> [AnalysedRecording] {
        try storeCall { () throws(GripStoreError) in try store.analysedRecordings(limit: nil) }
    }

    func row(_ id: RecordingID) throws -> RecordingRow? {
        try storeCall { () throws(GripStoreError) in try store.recording(id) }
    }

    func delete(_ id: RecordingID) throws {
        guard try storeCall({ () throws(GripStoreError) in try store.delete(id) }) else {
            throw CLIExit.error.fail(GripStoreError.recordingNotFound(id).description)
        }
    }

    func describe(_ id: RecordingID, _ change: RecordingDescription) throws -> RecordingRow {
        try storeCall { () throws(GripStoreError) in try store.describeRecording(id, change) }
    }

    func grant(note: String?, expires: Date?) throws -> Plan {
        let now = Date()
        try storeCall { () throws(GripStoreError) in try store.grantPro(note: note, expires: expires, by: currentUser, now: now) }
        return Plan(try session.status(now: now))
    }

    func revoke(note: String?) throws -> (removed: Bool?, plan: Plan) {
        let now = Date()
        let removed = try storeCall { () throws(GripStoreError) in
            try store.clearManualOverride(by: currentUser, note: note, at: now)
        }
        return (removed, Plan(try session.status(now: now)))
    }

    /// The row of a recording the plan shows: exit 1 when there is none, 3 when the free plan hides it.
    private func visibleRow(_ id: RecordingID) throws -> RecordingRow {
        guard let row = try self.row(id) else {
            throw CLIExit.error.fail(GripStoreError.recordingNotFound(id).description)
        }
        if let limit = try plan().visibleLimit {
            let visible = try storeCall { () throws(GripStoreError) in try store.listRecordings(limit: limit) }
            if !visible.visible.contains(where: { $0.id == row.id }) {
                throw CLIExit.proRequired.fail(
                    "Recording \(row.id) is hidden: the free plan shows the last \(limit) recordings. It is kept, "
                        + "not deleted; with Pro (`griptrack pro status`) it shows again.")
            }
        }
        return row
    }
}
