import Foundation

/// One account's line of `griptrack admin report`, from the `dashboard_accounts` view (docs/account.md).
public struct AccountReport: Sendable, Equatable, Encodable {
    public var account: String
    /// The app's `appAccountToken`.
    public var uuid: UUID
    /// Devices that pushed, recordings and samples on the server.
    public var devices: Int
    public var recordings: Int
    public var samples: Int
    /// The newest push of any of its devices.
    public var lastPush: Date?
    /// Devices whose mirrored plan is Pro.
    public var proDevices: Int
    /// The type of its newest App Store notification, and the latest expiry any of them carried.
    public var lastNotification: String?
    public var subscriptionExpires: Date?

    /// Creates a line.
    /// - Parameters: See the properties.
    public init(
        account: String, uuid: UUID, devices: Int, recordings: Int, samples: Int, lastPush: Date?, proDevices: Int,
        lastNotification: String?, subscriptionExpires: Date?
    ) {
        self.account = account
        self.uuid = uuid
        self.devices = devices
        self.recordings = recordings
        self.samples = samples
        self.lastPush = lastPush
        self.proDevices = proDevices
        self.lastNotification = lastNotification
        self.subscriptionExpires = subscriptionExpires
    }
}
