import Foundation

/// An App Store server notification that has been applied (its UUID is the idempotency key).
public struct ProcessedNotification: Sendable, Equatable {
    public var notificationUUID: String
    public var notificationType: String
    public var subtype: String?
    /// The notification's `signedDate` in milliseconds since 1970, if it had one.
    public var signedDateMillis: Double?
    /// When it was processed (host time).
    public var processedAt: Date

    /// Creates a processed notification value.
    ///
    /// - Parameters: See the properties.
    public init(
        notificationUUID: String, notificationType: String, subtype: String?, signedDateMillis: Double?,
        processedAt: Date
    ) {
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.signedDateMillis = signedDateMillis
        self.processedAt = processedAt
    }
}
