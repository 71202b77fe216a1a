/// The notification fast path without a bus, for the benchmark "D-Bus signal → ring" (`Benchmarks/`, docs/design.md,
/// "The hot path"): counts what one notification costs from the parsed D-Bus message to the handler.
///
/// It builds the `PropertiesChanged("org.bluez.GattCharacteristic1", {"Value": <ay>}, [])` signal BlueZ sends for
/// a notification once, with libdbus, and routes it through the same `Notifications` table the loop thread uses, so
/// what is measured is the product's code, not a copy of it. Reading the message off the socket is libdbus's work
/// and is not part of it.
@_spi(Benchmarks)
public final class NotificationFastPathProbe {
    private let notifications = Notifications()
    private let message: OwnedMessage

    /// Routes a notification of `value` on the characteristic at `path` to `handler`.
    public init?(path: String, value: [UInt8], handler: @escaping NotificationHandler) {
        guard let message = OwnedMessage.signal(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"),
            message.append([
                .string("org.bluez.GattCharacteristic1"), .properties(["Value": .bytes(value)]), .strings([]),
            ])
        else { return nil }
        self.message = message
        _ = notifications.add(path: path, handler: unsafe NotificationSink(handler))
    }

    /// Delivers the signal once, as the loop thread's filter does; true when it reached the handler.
    public func deliver() -> Bool { notifications.deliver(message) }
}
