/// What a sync client needs besides the store: the server, whose recordings they are, and which device this is.
package struct SyncSettings: Sendable, Equatable {
    package var endpoint: SyncEndpoint
    /// Who the recordings belong to (one person, a gym, a practice); every device of an account sees its history.
    package var account: String
    /// This device's name, unique within the account; each synced recording says which device recorded it.
    package var deviceName: String
    /// Outbox rows per PostgreSQL transaction.
    package var batchSize: Int
    /// How long each wait on the server may take before the connection is closed and the push fails.
    package var timeouts: SyncTimeouts = .standard

    /// Creates settings.
    /// - Parameters: See the properties; `batchSize` is 500 by default.
    package init(endpoint: SyncEndpoint, account: String, deviceName: String, batchSize: Int = 500) {
        self.endpoint = endpoint
        self.account = account
        self.deviceName = deviceName
        self.batchSize = max(1, batchSize)
    }
}
