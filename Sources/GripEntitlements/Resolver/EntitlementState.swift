import Foundation

/// Everything the resolver knows: configuration (bypass, Pro products), the manual override, verified
/// subscriptions, and the replay-protection memory. A pure value; `GripStore` persists it (it is `Codable`).
public struct EntitlementState: Hashable, Sendable, Codable {
    /// Early access: when set, everyone is Pro. From the configuration.
    public var bypass: Bool
    /// Pro granted by hand, if any.
    public var manualOverride: ManualOverride?
    /// Product ids that are Pro, mapped to the plan name used in reasons (e.g. `"yearly"`). Empty means every
    /// subscription product of the app is Pro and is called "subscription".
    public var proProducts: [String: String]
    /// Verified subscriptions keyed by `originalTransactionId`.
    public internal(set) var subscriptions: [String: SubscriptionRecord]
    /// The (clamped) time at which verified data was last applied. For display only; never grants anything.
    public internal(set) var lastSuccessfulVerification: Date?
    /// The newest `signedDate` of any verified data: the resolver's "now" never goes below it.
    public internal(set) var newestSignedDate: Date?
    /// `notificationUUID`s already applied; a repeat is a no-op.
    public internal(set) var processedNotificationUUIDs: Set<String>
    /// The last verification failure, for `pro status`. It never changes access.
    public internal(set) var lastFailure: RecordedFailure?

    /// A verification failure as remembered for status output.
    public struct RecordedFailure: Hashable, Sendable, Codable {
        /// Its category.
        public let category: VerificationFailure.Category
        /// Whether it was retryable.
        public let isRetryable: Bool
        /// What was wrong.
        public let detail: String
        /// When it happened (clamped now).
        public let at: Date
    }

    /// Creates a state with no verified data.
    ///
    /// - Parameters:
    ///   - bypass: Early access for everyone.
    ///   - manualOverride: A manual Pro grant.
    ///   - proProducts: Pro product ids → plan names; empty accepts every subscription product.
    public init(bypass: Bool = false, manualOverride: ManualOverride? = nil, proProducts: [String: String] = [:]) {
        self.bypass = bypass
        self.manualOverride = manualOverride
        self.proProducts = proProducts
        self.subscriptions = [:]
        self.lastSuccessfulVerification = nil
        self.newestSignedDate = nil
        self.processedNotificationUUIDs = []
        self.lastFailure = nil
    }

    /// The "robust now": never earlier than the newest verified `signedDate` (blunts clock rollback).
    ///
    /// - Parameter now: The system clock.
    /// - Returns: `max(now, newestSignedDate)`.
    public func clampedNow(_ now: Date) -> Date {
        guard let newestSignedDate else { return now }
        return max(now, newestSignedDate)
    }

    /// Encodes the state as JSON for storage (dates as milliseconds since 1970, sorted keys).
    ///
    /// - Returns: The JSON bytes.
    /// - Throws: An `EncodingError` (not expected for this type).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// Decodes a state stored with ``jsonData()``.
    ///
    /// - Parameter jsonData: The stored bytes.
    /// - Throws: A `DecodingError` when the bytes are not a stored state.
    public init(jsonData: Data) throws {
        self = try appStoreJSONDecoder().decode(EntitlementState.self, from: jsonData)
    }

    /// The plan name of a product, or `nil` when the product is not Pro.
    func planName(_ productId: String?) -> String? {
        if proProducts.isEmpty { return "subscription" }
        guard let productId else { return nil }
        return proProducts[productId]
    }
}
