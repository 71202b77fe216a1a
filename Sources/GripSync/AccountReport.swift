import Foundation

/// One account's line of `griptrack admin report`, from the `dashboard_accounts` view (docs/account.md).
package struct AccountReport: Sendable, Equatable, Encodable {
    /// The keys of `admin report --json`: the view's column names.
    enum CodingKeys: String, CodingKey {
        case account
        case accountUUID = "account_uuid"
        case createdAt = "created_at"
        case devices, recordings, samples
        case lastPush = "last_push"
        case proDevices = "pro_devices"
        case lastNotification = "last_notification"
        case subscriptionExpires = "subscription_expires"
    }

    package var account: String
    /// The app's `appAccountToken` (`account_uuid`, as the dashboard view and docs/account.md name it).
    package var accountUUID: UUID
    /// When the account was created.
    package var createdAt: Date
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
        account: String, accountUUID: UUID, createdAt: Date, devices: Int, recordings: Int, samples: Int, lastPush: Date?, proDevices: Int,
        lastNotification: String?, subscriptionExpires: Date?
    ) {
        self.account = account
        self.accountUUID = accountUUID
        self.createdAt = createdAt
        self.devices = devices
        self.recordings = recordings
        self.samples = samples
        self.lastPush = lastPush
        self.proDevices = proDevices
        self.lastNotification = lastNotification
        self.subscriptionExpires = subscriptionExpires
    }
}
