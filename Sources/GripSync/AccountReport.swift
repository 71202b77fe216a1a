import Foundation

/// One account's line of `griptrack admin report`, from the `dashboard_accounts` view (docs/account.md).
package struct AccountReport: Sendable, Equatable, Encodable {
    package var account: String
    /// The app's `appAccountToken`.
    package var uuid: UUID
    /// Devices that pushed, recordings and samples on the server.
    package var devices: Int
    package var recordings: Int
    package var samples: Int
    /// The newest push of any of its devices.
    package var lastPush: Date?
    /// Devices whose mirrored plan is Pro.
    package var proDevices: Int
    /// The type of its newest App Store notification, and the latest expiry any of them carried.
    package var lastNotification: String?
    package var subscriptionExpires: Date?

    /// Creates a line.
    /// - Parameters: See the properties.
    package init(
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
