import Foundation

/// Fixed rules of the entitlement resolver.
public enum EntitlementPolicy {
    /// How long verified data that showed an active or grace-period subscription keeps granting Pro after its
    /// `signedDate`, even past its expiry, while no newer data says otherwise: 7 days. Data older than this at
    /// import time may take access away but never grants it.
    public static let offlineGrace: TimeInterval = 7 * 24 * 60 * 60
}

/// Formats an instant as its UTC calendar day, `yyyy-MM-dd`, for reason strings.
func utcDay(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .gmt
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    func pad(_ value: Int?, _ width: Int) -> String {
        let text = String(value ?? 0)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))"
}
