extension DaemonMessage {
    /// `RECORDER` (1.1): what the recorder did, sent to watchers. One flat object whose `event` says which fields
    /// it has (docs/protocol.md): `started`, `refused`, `saved`/`discarded`, `storage_failed`, `storage_recovered`.
    package struct RecorderReport: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "RECORDER"

        package var event: String
        package var id: Int64?
        package var samples: Int?
        package var efforts: Int?
        package var explicit: Bool?
        package var hand: String?
        package var label: String?
        package var reason: String?
        /// `storage_failed`: why the store cannot be written, how many samples are held, when it is tried again.
        package var problem: String?
        package var heldSamples: Int?
        package var retryS: Int?
        /// `storage_recovered`.
        package var committedSamples: Int?
        package var droppedSamples: Int?

        package init(
            event: String, id: Int64? = nil, samples: Int? = nil, efforts: Int? = nil, explicit: Bool? = nil,
            hand: String? = nil, label: String? = nil, reason: String? = nil, problem: String? = nil,
            heldSamples: Int? = nil, retryS: Int? = nil, committedSamples: Int? = nil, droppedSamples: Int? = nil
        ) {
            self.event = event
            self.id = id
            self.samples = samples
            self.efforts = efforts
            self.explicit = explicit
            self.hand = hand
            self.label = label
            self.reason = reason
            self.problem = problem
            self.heldSamples = heldSamples
            self.retryS = retryS
            self.committedSamples = committedSamples
            self.droppedSamples = droppedSamples
        }

        /// `saved` (with the row) or `discarded` (live-only), as STOP says it too.
        package init(finished: FinishedRecording) {
            self.init(
                event: finished.event, id: finished.id, samples: finished.samples, efforts: finished.efforts,
                explicit: finished.explicit, hand: finished.hand, label: finished.label, reason: finished.reason)
        }

        package func write(to fields: inout JSONLine) {
            fields.add("event", event)
            fields.add("id", id)
            fields.add("samples", samples)
            fields.add("efforts", efforts)
            fields.add("explicit", explicit)
            fields.add("hand", hand)
            fields.add("label", label)
            fields.add("reason", reason)
            fields.add("problem", problem)
            fields.add("held_samples", heldSamples)
            fields.add("retry_s", retryS)
            fields.add("committed_samples", committedSamples)
            fields.add("dropped_samples", droppedSamples)
        }
    }

    /// A recording the recorder closed, as STOP and RECORDER describe it.
    package struct FinishedRecording: Sendable, Equatable {
        /// The stored row; nil when it was not saved.
        package var id: Int64?
        package var explicit: Bool
        package var samples: Int
        package var efforts: Int
        package var maxKilograms: Float?
        package var averageKilograms: Float?
        package var hand: String?
        package var label: String?
        /// Why it was not saved, when that was not the client's choice (``nothingRecorded``).
        package var reason: String?

        /// The reason of a recording discarded because it held no effort.
        package static let nothingRecorded =
            "nothing was recorded: no pull seen, so no recording was stored and no slot of the free plan was used"

        package init(
            id: Int64?, explicit: Bool, samples: Int, efforts: Int, maxKilograms: Float?, averageKilograms: Float?,
            hand: String?, label: String?, reason: String? = nil
        ) {
            self.reason = reason
            self.id = id
            self.explicit = explicit
            self.samples = samples
            self.efforts = efforts
            self.maxKilograms = maxKilograms
            self.averageKilograms = averageKilograms
            self.hand = hand
            self.label = label
        }

        /// `saved` or `discarded`.
        package var event: String { id == nil ? "discarded" : "saved" }
    }

    /// The reply to `RECORD` (1.1): `started` or `refused`.
    package struct RecordReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "RECORD"

        package var event: String
        package var saving: Bool?
        package var id: Int64?
        /// `started`: the plan's line ("Free: 3 of 5 stored").
        package var access: String?
        package var reason: String?
        package var stored: Int?
        package var limit: Int?

        package static func started(saving: Bool, id: Int64?, access: String?) -> RecordReply {
            RecordReply(event: "started", saving: saving, id: saving ? id : nil, access: access)
        }

        package static func refused(reason: String, stored: Int, limit: Int) -> RecordReply {
            RecordReply(event: "refused", reason: reason, stored: stored, limit: limit)
        }

        private init(
            event: String, saving: Bool? = nil, id: Int64? = nil, access: String? = nil, reason: String? = nil,
            stored: Int? = nil, limit: Int? = nil
        ) {
            self.event = event
            self.saving = saving
            self.id = id
            self.access = access
            self.reason = reason
            self.stored = stored
            self.limit = limit
        }

        package func write(to fields: inout JSONLine) {
            fields.add("event", event)
            fields.add("saving", saving)
            fields.add("id", id)
            fields.add("access", access)
            fields.add("reason", reason)
            fields.add("stored", stored)
            fields.add("limit", limit)
        }
    }

    /// The reply to `STOP` (1.1): `saved` or `discarded`.
    package struct StopReply: Codable, Equatable, Sendable, ProtocolLine {
        package static let lineClass = "STOP"

        package var event: String
        package var id: Int64?
        package var samples: Int?
        package var efforts: Int?
        package var maxKg: Float?
        package var avgKg: Float?
        /// `discarded` for a reason other than `save: false` (1.6): e.g. no effort was seen.
        package var reason: String?
        /// 1.11, `saved`: the free plan's warning at one slot left or none, as STATUS `access.warning`.
        package var warning: String?

        package init(
            event: String, id: Int64? = nil, samples: Int? = nil, efforts: Int? = nil, maxKg: Float? = nil,
            avgKg: Float? = nil, reason: String? = nil, warning: String? = nil
        ) {
            self.event = event
            self.reason = reason
            self.warning = warning
            self.id = id
            self.samples = samples
            self.efforts = efforts
            self.maxKg = maxKg
            self.avgKg = avgKg
        }

        package init(finished: FinishedRecording, warning: String? = nil) {
            self.init(
                event: finished.event, id: finished.id, samples: finished.samples, efforts: finished.efforts,
                maxKg: finished.maxKilograms, avgKg: finished.averageKilograms, reason: finished.reason,
                warning: finished.id == nil ? nil : warning)
        }

        package func write(to fields: inout JSONLine) {
            fields.add("event", event)
            fields.add("id", id)
            fields.add("samples", samples)
            fields.add("efforts", efforts)
            fields.add("max_kg", maxKg)
            fields.add("avg_kg", avgKg)
            fields.add("reason", reason)
            fields.add("warning", warning)
        }
    }
}
