import Foundation

/// The answer of ``resolve(_:now:)``: Pro or Free, which source decided it, and a sentence saying why.
public struct Access: Hashable, Sendable, Codable {
    /// Pro or Free.
    public enum Tier: String, Hashable, Sendable, Codable {
        /// Unlimited storage and every Pro feature.
        case pro
        /// At most ``FreeTierPolicy/storedRecordingLimit`` stored recordings.
        case free
    }

    /// Which rule decided the answer.
    public enum Source: String, Hashable, Sendable, Codable {
        /// The global bypass flag from the configuration (early access: everyone is Pro).
        case bypass
        /// A manual override granted by an administrator.
        case manualOverride
        /// An App Store subscription that is active at `now`.
        case subscription
        /// An App Store subscription whose renewal failed but which is inside Apple's billing grace period.
        case billingGracePeriod
        /// Verified data showed the subscription active less than 7 days ago; no newer data arrived since.
        case offlineGrace
        /// Nothing grants Pro.
        case none
    }

    /// Pro or Free.
    public let tier: Tier
    /// Which rule decided.
    public let source: Source
    /// A human sentence, e.g. `"Pro: App Store yearly, renews 2027-01-04"`.
    public let reason: String
    /// When this Pro access ends unless new data arrives; `nil` for no end (and always for Free).
    public let expires: Date?
    /// The subscription that decided, for ``Source/subscription``, ``Source/billingGracePeriod`` and
    /// ``Source/offlineGrace`` (and for a Free answer explained by a lapsed subscription).
    public let originalTransactionId: String?

    /// Whether the tier is Pro.
    public var isPro: Bool { tier == .pro }

    init(tier: Tier, source: Source, reason: String, expires: Date? = nil, originalTransactionId: String? = nil) {
        self.tier = tier
        self.source = source
        self.reason = reason
        self.expires = expires
        self.originalTransactionId = originalTransactionId
    }
}
