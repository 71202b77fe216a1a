import Foundation
import GripStore

/// A recording as the sync database holds it, with the device that recorded it (`griptrack list --everywhere`).
public struct RemoteRecording: Sendable, Equatable {
    public var uuid: UUID
    /// `[sync] device_name` of the device that recorded it.
    public var deviceName: String
    public var startedAt: Date
    public var endedAt: Date?
    /// The force gauge's address.
    public var device: String
    public var profile: String
    /// `left`, `right` or `nil`.
    public var hand: String?
    public var label: String?
    /// `recording`, `complete` or `recovered`.
    public var state: String
    public var sampleCount: Int
    public var effortCount: Int
    public var maxKilograms: Double?
    public var averageKilograms: Double?
    /// Athlete, grip, edge, body weight and protocol (server migration 7; all absent for a row pushed before it,
    /// until its device pushes it again).
    public var setup: RecordingSetup

    /// Creates a row (the client makes these).
    /// - Parameters: See the properties.
    public init(
        uuid: UUID, deviceName: String, startedAt: Date, endedAt: Date?, device: String, profile: String,
        hand: String?, label: String?, state: String, sampleCount: Int, effortCount: Int, maxKilograms: Double?,
        averageKilograms: Double?, setup: RecordingSetup = RecordingSetup()
    ) {
        self.uuid = uuid
        self.deviceName = deviceName
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.device = device
        self.profile = profile
        self.hand = hand
        self.label = label
        self.state = state
        self.sampleCount = sampleCount
        self.effortCount = effortCount
        self.maxKilograms = maxKilograms
        self.averageKilograms = averageKilograms
        self.setup = setup
    }
}
