extension DaemonMessage {
    /// The reply to `PLAN`: access as the resolver decides it, with the free plan's numbers.
    package struct PlanReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "PLAN"

        package var pro: Bool
        /// `free` or `pro`.
        package var tier: String
        package var source: String
        package var reason: String
        /// Unix seconds.
        package var expires: Double?
        /// The free plan's storage line.
        package var storage: String?
        package var stored: Int
        package var limit: Int
        /// 1.7: where an App Store Pro came from, when a sync brought it.
        package var provenance: String?
        /// 1.11: the free plan's warning at one slot left or none.
        package var warning: String?

        /// - Parameters: See the properties.
        package init(
            pro: Bool, tier: String, source: String, reason: String, expires: Double?, storage: String?, stored: Int,
            limit: Int, provenance: String?, warning: String? = nil
        ) {
            self.pro = pro
            self.tier = tier
            self.source = source
            self.reason = reason
            self.expires = expires
            self.storage = storage
            self.stored = stored
            self.limit = limit
            self.provenance = provenance
            self.warning = warning
        }

        package func write(to fields: inout JSONLine) {
            fields.add("pro", pro)
            fields.add("tier", tier)
            fields.add("source", source)
            fields.add("reason", reason)
            fields.add("expires", expires)
            fields.add("storage", storage)
            fields.add("stored", stored)
            fields.add("limit", limit)
            fields.add("provenance", provenance)
            fields.add("warning", warning)
        }
    }

    /// The reply to `LIST`.
    package struct ListReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "LIST"

        /// A row that cannot be read, and why.
        package struct Damaged: Codable, Equatable, Sendable, ProtocolFields {
            package var id: Int64?
            package var reason: String

            package init(id: Int64?, reason: String) {
                self.id = id
                self.reason = reason
            }

            package func write(to fields: inout JSONLine) {
                fields.add("id", id)
                fields.add("reason", reason)
            }
        }

        package var recordings: [RecordingObject]
        /// Absent when every row could be read.
        package var damaged: [Damaged]?
        package var hidden: Int
        package var pro: Bool?
        package var stored: Int?
        package var limit: Int?

        /// - Parameters: See the properties.
        package init(recordings: [RecordingObject], damaged: [Damaged], hidden: Int, pro: Bool, stored: Int, limit: Int) {
            self.recordings = recordings
            self.damaged = damaged.isEmpty ? nil : damaged
            self.hidden = hidden
            self.pro = pro
            self.stored = stored
            self.limit = limit
        }

        package func write(to fields: inout JSONLine) {
            fields.add("recordings", objects: recordings)
            if let damaged { fields.add("damaged", objects: damaged) }
            fields.add("hidden", hidden)
            fields.add("pro", pro)
            fields.add("stored", stored)
            fields.add("limit", limit)
        }
    }

    /// The reply to `SHOW`.
    package struct ShowReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "SHOW"

        package var recording: RecordingObject
        package var efforts: [EffortObject]
        /// 1.9: for an imported test, the app's figures beside griptrack's (`show --json`'s `imported`); absent for
        /// a recording griptrack measured.
        package var imported: ImportComparison?

        /// - Parameters: See the properties.
        package init(recording: RecordingObject, efforts: [EffortObject], imported: ImportComparison? = nil) {
            self.recording = recording
            self.efforts = efforts
            self.imported = imported
        }

        package func write(to fields: inout JSONLine) {
            fields.add("recording", object: recording)
            fields.add("efforts", objects: efforts)
            if let imported { fields.add("imported", object: imported) }
        }
    }

    /// The reply to `LABEL` (1.6): the recording as stored after the change.
    package struct LabelReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "LABEL"

        package var recording: RecordingObject

        package init(recording: RecordingObject) { self.recording = recording }

        package func write(to fields: inout JSONLine) {
            fields.add("recording", object: recording)
        }
    }

    /// The reply to `READ`: one page of samples, stream times in seconds as in `SAMPLES`.
    package struct ReadReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "READ"

        package var id: Int64
        package var t: [Double]
        package var kg: [Float]
        /// The sequence to ask for next; absent on the last page.
        package var next: Int?

        package init(id: Int64, t: [Double], kg: [Float], next: Int?) {
            self.id = id
            self.t = t
            self.kg = kg
            self.next = next
        }

        package func write(to fields: inout JSONLine) {
            fields.add("id", id)
            fields.add("t", numbers: t)
            fields.add("kg", numbers: kg)
            fields.add("next", next)
        }
    }

    /// The reply to `STATS`.
    package struct StatsReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "STATS"

        package var recordings: Int
        package var efforts: Int
        package var samples: Int
        package var maxKg: Double?
        package var avgKg: Double?
        /// Unix seconds.
        package var first: Double?
        package var last: Double?
        package var pro: Bool?
        package var stored: Int?
        package var limit: Int?

        /// - Parameters: See the properties.
        package init(
            recordings: Int, efforts: Int, samples: Int, maxKg: Double?, avgKg: Double?, first: Double?, last: Double?,
            pro: Bool, stored: Int, limit: Int
        ) {
            self.recordings = recordings
            self.efforts = efforts
            self.samples = samples
            self.maxKg = maxKg
            self.avgKg = avgKg
            self.first = first
            self.last = last
            self.pro = pro
            self.stored = stored
            self.limit = limit
        }

        package func write(to fields: inout JSONLine) {
            fields.add("recordings", recordings)
            fields.add("efforts", efforts)
            fields.add("samples", samples)
            fields.add("max_kg", maxKg)
            fields.add("avg_kg", avgKg)
            fields.add("first", first)
            fields.add("last", last)
            fields.add("pro", pro)
            fields.add("stored", stored)
            fields.add("limit", limit)
        }
    }

    /// The reply to `HISTORY`: every recording (oldest first) with its efforts.
    package struct HistoryReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "HISTORY"

        package struct Item: Codable, Equatable, Sendable, ProtocolFields {
            package var id: Int64
            package var startedAt: Double
            package var startUs: Int64
            package var endUs: Int64
            package var efforts: [EffortObject]

            package init(id: Int64, startedAt: Double, startUs: Int64, endUs: Int64, efforts: [EffortObject]) {
                self.id = id
                self.startedAt = startedAt
                self.startUs = startUs
                self.endUs = endUs
                self.efforts = efforts
            }

            package func write(to fields: inout JSONLine) {
                fields.add("id", id)
                fields.add("started_at", startedAt)
                fields.add("start_us", startUs)
                fields.add("end_us", endUs)
                fields.add("efforts", objects: efforts)
            }
        }

        package var recordings: [Item]

        package init(recordings: [Item]) { self.recordings = recordings }

        package func write(to fields: inout JSONLine) {
            fields.add("recordings", objects: recordings)
        }
    }

    /// The reply to `DELETE`.
    package struct DeleteReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "DELETE"

        package var id: Int64
        package var deleted: Bool
        package var stored: Int?
        package var limit: Int?

        package init(id: Int64, stored: Int?, limit: Int?) {
            self.id = id
            self.deleted = true
            self.stored = stored
            self.limit = limit
        }

        package func write(to fields: inout JSONLine) {
            fields.add("id", id)
            fields.add("deleted", deleted)
            fields.add("stored", stored)
            fields.add("limit", limit)
        }
    }

    /// The reply to `PRO` import: what each piece of signed data did, and access before and after.
    package struct ImportReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "PRO"

        package struct Event: Codable, Equatable, Sendable, ProtocolFields {
            package var kind: String
            package var originalTransactionId: String?
            /// `applied`, `replay_ignored`, `duplicate_notification`, `too_old_to_grant` or `ignored: <why>`.
            package var disposition: String

            package init(kind: String, originalTransactionId: String?, disposition: String) {
                self.kind = kind
                self.originalTransactionId = originalTransactionId
                self.disposition = disposition
            }

            package func write(to fields: inout JSONLine) {
                fields.add("kind", kind)
                fields.add("original_transaction_id", originalTransactionId)
                fields.add("disposition", disposition)
            }
        }

        /// `import`.
        package var action: String
        package var pro: Bool
        package var reason: String
        /// The reason before the import.
        package var before: String
        package var events: [Event]

        package init(pro: Bool, reason: String, before: String, events: [Event]) {
            self.action = "import"
            self.pro = pro
            self.reason = reason
            self.before = before
            self.events = events
        }

        package func write(to fields: inout JSONLine) {
            fields.add("action", action)
            fields.add("pro", pro)
            fields.add("reason", reason)
            fields.add("before", before)
            fields.add("events", objects: events)
        }
    }
}
