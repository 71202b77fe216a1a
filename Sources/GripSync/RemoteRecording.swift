import Foundation
import GripStore

/// A recording as the sync database holds it, with the device that recorded it (`griptrack list --everywhere`).
package struct RemoteRecording: Sendable, Equatable {
    package var uuid: UUID
    /// `[sync] device_name` of the device that recorded it.
    package var deviceName: String
    package var startedAt: Date
    package var endedAt: Date?
    /// The force gauge's address.
    package var device: String
    package var profile: String
    /// `left`, `right` or `nil`.
    package var hand: String?
    package var label: String?
    /// `recording`, `complete` or `recovered`.
    package var state: String
    package var sampleCount: Int
    package var effortCount: Int
    package var maxKilograms: Double?
    package var averageKilograms: Double?
    /// Athlete, grip, edge, body weight and protocol (server migration 7; all absent for a row pushed before it,
    /// until its device pushes it again).
    package var setup: RecordingSetup

    /// Creates a row (the client makes these).
    /// - Parameters: See the properties.
    package init(
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
