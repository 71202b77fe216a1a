import Foundation

/// A decoded App Store Server Notification V2 (`ResponseBodyV2DecodedPayload`).
public struct NotificationPayload: Hashable, Sendable, Codable {
    /// Raw notification type, e.g. `"SUBSCRIBED"`, `"REFUND"`, `"TEST"`.
    public var notificationType: String?
    /// Raw subtype, e.g. `"INITIAL_BUY"`, `"GRACE_PERIOD"`.
    public var subtype: String?
    /// The idempotency key: a repeated UUID is a no-op.
    public var notificationUUID: String?
    /// Notification format version.
    public var version: String?
    /// When the App Store signed the notification.
    public var signedDate: Date?
    /// The app and subscription data (most notification types).
    public var data: AppData?
    /// The summary (RENEWAL_EXTENSION / SUMMARY).
    public var summary: Summary?
    /// External purchase token notifications.
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// App-level data (notifications about the app itself).
    public var appData: AppLevelData?

    /// The `data` object of a notification.
    public struct AppData: Hashable, Sendable, Codable {
        /// The environment that sent the notification.
        public var environment: AppStoreEnvironment?
        /// The app's Apple ID (a number); required to match in Production.
        public var appAppleId: Int64?
        /// The app's bundle identifier.
        public var bundleId: String?
        /// The app's build version.
        public var bundleVersion: String?
        /// A nested transaction JWS; the verifier verifies it on its own.
        public var signedTransactionInfo: String?
        /// A nested renewal-info JWS; the verifier verifies it on its own.
        public var signedRenewalInfo: String?
        /// Subscription status as of the notification's `signedDate` (1 active … 5 revoked).
        public var status: Int?
        /// Raw consumption request reason.
        public var consumptionRequestReason: String?
    }

    /// The `summary` object of a notification.
    public struct Summary: Hashable, Sendable, Codable {
        /// The environment.
        public var environment: AppStoreEnvironment?
        /// The app's Apple ID.
        public var appAppleId: Int64?
        /// The app's bundle identifier.
        public var bundleId: String?
        /// The product the request concerned.
        public var productId: String?
        /// The request's identifier.
        public var requestIdentifier: String?
        /// Storefront country codes the request covered.
        public var storefrontCountryCodes: [String]?
        /// Subscriptions that succeeded.
        public var succeededCount: Int64?
        /// Subscriptions that failed.
        public var failedCount: Int64?
    }

    /// The `externalPurchaseToken` object of a notification.
    public struct ExternalPurchaseToken: Hashable, Sendable, Codable {
        /// The external purchase identifier.
        public var externalPurchaseId: String?
        /// When the token was created.
        public var tokenCreationDate: Date?
        /// The app's Apple ID.
        public var appAppleId: Int64?
        /// The app's bundle identifier.
        public var bundleId: String?
    }

    /// The `appData` object of a notification.
    public struct AppLevelData: Hashable, Sendable, Codable {
        /// The app's Apple ID.
        public var appAppleId: Int64?
        /// The app's bundle identifier.
        public var bundleId: String?
        /// The environment.
        public var environment: AppStoreEnvironment?
        /// A nested app-transaction JWS (not used by griptrack).
        public var signedAppTransactionInfo: String?
    }

    /// The identity fields used for app checks, taken from `data`, else `summary`, else `externalPurchaseToken`,
    /// else `appData` (the upstream library's order).
    var appIdentity: (bundleId: String?, appAppleId: Int64?, environment: AppStoreEnvironment?) {
        if let data { return (data.bundleId, data.appAppleId, data.environment) }
        if let summary { return (summary.bundleId, summary.appAppleId, summary.environment) }
        if let externalPurchaseToken {
            // External purchase tokens carry no environment field; upstream derives it from the id prefix.
            let sandbox = externalPurchaseToken.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
            return (externalPurchaseToken.bundleId, externalPurchaseToken.appAppleId, sandbox ? .sandbox : .production)
        }
        if let appData { return (appData.bundleId, appData.appAppleId, appData.environment) }
        return (nil, nil, nil)
    }
}
