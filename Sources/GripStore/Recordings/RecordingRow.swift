import Foundation
import GripAnalysis

/// A stored recording as the history shows it.
public struct RecordingRow: Sendable, Equatable, Identifiable {
    /// The row id.
    public var id: RecordingID
    /// The stable identity.
    public var uuid: UUID
    /// Host wall-clock start time (millisecond precision).
    public var startedAt: Date
    /// Host wall-clock end time; `nil` while recording. For a recovered recording, the time of its last committed
    /// chunk (or its start, if none was committed).
    public var endedAt: Date?
    /// The device address or name.
    public var device: String
    /// The device profile name.
    public var profile: String
    /// The hand used, if known.
    public var hand: Hand?
    /// The free-text label, if any.
    public var label: String?
    /// Recording, complete or recovered.
    public var state: RecordingState
    /// The highest effort peak in kilograms, once known.
    public var maxKilograms: Double?
    /// The mean of the effort peaks in kilograms, once known.
    public var averageKilograms: Double?
    /// Samples committed so far.
    public var sampleCount: Int
    /// Efforts stored.
    public var effortCount: Int
    /// Who pulled and on what: athlete, grip, edge depth, body weight (each absent until someone says).
    public var setup: RecordingSetup
    /// The sensor's correction its samples were corrected with (docs/calibration.md); nil = read as decoded.
    public var correction: ForceCorrection?

    /// Creates a row value (the store makes these; tests and mappers may too).
    public init(
        id: RecordingID, uuid: UUID, startedAt: Date, endedAt: Date?, device: String, profile: String,
        hand: Hand?, label: String?, state: RecordingState, maxKilograms: Double?, averageKilograms: Double?,
        sampleCount: Int, effortCount: Int, setup: RecordingSetup = RecordingSetup(), correction: ForceCorrection? = nil
    ) {
        self.id = id
        self.uuid = uuid
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.device = device
        self.profile = profile
        self.hand = hand
        self.label = label
        self.state = state
        self.maxKilograms = maxKilograms
        self.averageKilograms = averageKilograms
        self.sampleCount = sampleCount
        self.effortCount = effortCount
        self.setup = setup
        self.correction = correction
    }
}

/// A page of history: the newest recordings, and how many older ones it leaves out.
public struct RecordingList: Sendable, Equatable {
    /// The recordings shown, newest first.
    public var visible: [RecordingRow]
    /// How many stored recordings are not shown (kept, not deleted: e.g. a free history after Pro ended).
    public var hiddenCount: Int
    /// Rows in the page that do not decode (a damaged or hand-edited file), with why; every other row is shown.
    public var damaged: [DamagedRecording]

    /// Creates a history page.
    ///
    /// - Parameters:
    ///   - visible: The recordings shown, newest first.
    ///   - hiddenCount: How many stored recordings are left out.
    ///   - damaged: Rows of the page that could not be read.
    public init(visible: [RecordingRow], hiddenCount: Int, damaged: [DamagedRecording] = []) {
        self.visible = visible
        self.hiddenCount = hiddenCount
        self.damaged = damaged
    }
}

/// A recording row griptrack cannot read, and why (`griptrack doctor` lists and quarantines them).
public struct DamagedRecording: Error, Sendable, Equatable {
    /// The row id, when even that is readable.
    public var id: Int64?
    /// What is wrong, naming the column.
    public var reason: String

    public init(id: Int64?, reason: String) {
        self.id = id
        self.reason = reason
    }
}
