// The only file that talks to libdbus-1 (docs/design.md, "Import rules"). One thin wrapper per C function, named in its doc.
//
// Invariants:
// - Every DBusConnection* is owned by exactly one `RawConnection`. All calls on it, except `open`/`register`
//   before the loop thread starts and `close` after it stopped, happen on that connection's loop thread
//   (BusConnection). libdbus is still initialised for threads (`dbus_threads_init_default`) because messages are
//   built and parsed on other threads.
// - Every DBusMessage* held beyond a callback is owned by an `OwnedMessage` (one reference, dropped in deinit).
//   A `MessageIterator` keeps its `OwnedMessage` alive, so an iterator can never outlive the bytes it points into.
// - Callback context pointers are `Unmanaged` boxes retained when registered and released by the free function
//   libdbus calls when it drops them, so a callback never sees a freed box.
// - The notification fast path (`Notifications.deliver`) reads a borrowed DBusMessage* only during the filter
//   callback; it allocates nothing.

import CDBus
import Glibc

/// Namespace for process-wide libdbus calls.
enum LibDBus {
    /// `dbus_threads_init_default`: makes libdbus safe to use from several threads. Idempotent.
    static let threadsInitialised: Bool = dbus_threads_init_default() != 0

    /// The system bus address: `DBUS_SYSTEM_BUS_ADDRESS` when set (tests), else the well-known socket.
    static func systemBusAddress() -> String {
        if let value = unsafe getenv("DBUS_SYSTEM_BUS_ADDRESS"), unsafe value.pointee != 0 {
            return unsafe String(cString: value)
        }
        return "unix:path=/var/run/dbus/system_bus_socket"
    }
}

// MARK: - Errors

/// A D-Bus error: its name (`org.bluez.Error.Failed`) and message (`le-connection-abort-by-local`).
struct DBusErrorInfo: Error, Sendable, Equatable {
    var name: String
    var message: String
}

/// Runs `body` with an initialised `DBusError` and converts a set error into `DBusErrorInfo`.
/// Wraps `dbus_error_init`, `dbus_error_is_set`, `dbus_error_free`.
private func withDBusError<T>(_ body: (UnsafeMutablePointer<DBusError>) -> T) -> Result<T, DBusErrorInfo> {
    var error = unsafe DBusError()
    unsafe dbus_error_init(&error)
    let value = unsafe body(&error)
    if unsafe dbus_error_is_set(&error) != 0 {
        let info = unsafe DBusErrorInfo(
            name: error.name.map { unsafe String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
            message: error.message.map { unsafe String(cString: $0) } ?? ""
        )
        unsafe dbus_error_free(&error)
        return .failure(info)
    }
    return .success(value)
}

// MARK: - Messages

/// D-Bus type codes (the ASCII letters of the signature grammar, as DBUS_TYPE_* in dbus-protocol.h).
enum DBusTypeCode: Int32 {
    case invalid = 0
    case byte = 121  // y
    case boolean = 98  // b
    case int16 = 110  // n
    case uint16 = 113  // q
    case int32 = 105  // i
    case uint32 = 117  // u
    case int64 = 120  // x
    case uint64 = 116  // t
    case double = 100  // d
    case string = 115  // s
    case objectPath = 111  // o
    case signature = 103  // g
    case unixFD = 104  // h
    case array = 97  // a
    case variant = 118  // v
    case structure = 114  // r
    case dictEntry = 101  // e
}

/// Owns one reference to a DBusMessage.
@safe
final class OwnedMessage: @unchecked Sendable {
    // SAFETY: a DBusMessage is only read or appended to by one thread at a time in this module (built by the
    // caller, then handed to the loop thread; replies parsed by one waiter), and libdbus refcounts are atomic.
    fileprivate let raw: OpaquePointer

    /// Takes over a reference the caller owns.
    fileprivate init(taking raw: OpaquePointer) { unsafe self.raw = raw }

    /// Adds a reference to a borrowed message: `dbus_message_ref`.
    fileprivate init(retaining raw: OpaquePointer) {
        unsafe dbus_message_ref(raw)
        unsafe self.raw = raw
    }

    /// `dbus_message_unref`.
    deinit { unsafe dbus_message_unref(raw) }

    /// A method call message: `dbus_message_new_method_call`. Nil only when out of memory.
    static func methodCall(destination: String, path: String, interface: String, member: String) -> OwnedMessage? {
        guard let raw = unsafe dbus_message_new_method_call(destination, path, interface, member) else { return nil }
        return unsafe OwnedMessage(taking: raw)
    }

    /// A signal message: `dbus_message_new_signal`. Nil only when out of memory.
    static func signal(path: String, interface: String, member: String) -> OwnedMessage? {
        guard let raw = unsafe dbus_message_new_signal(path, interface, member) else { return nil }
        return unsafe OwnedMessage(taking: raw)
    }

    /// `dbus_message_get_type` (CDBUS_MESSAGE_TYPE_*).
    var type: Int32 { unsafe dbus_message_get_type(raw) }
    /// `dbus_message_get_path`.
    var path: String? { unsafe dbus_message_get_path(raw).map { unsafe String(cString: $0) } }
    /// `dbus_message_get_interface`.
    var interface: String? { unsafe dbus_message_get_interface(raw).map { unsafe String(cString: $0) } }
    /// `dbus_message_get_member`.
    var member: String? { unsafe dbus_message_get_member(raw).map { unsafe String(cString: $0) } }
    /// `dbus_message_get_sender`.
    var sender: String? { unsafe dbus_message_get_sender(raw).map { unsafe String(cString: $0) } }
    /// `dbus_message_get_error_name`.
    var errorName: String? { unsafe dbus_message_get_error_name(raw).map { unsafe String(cString: $0) } }
    /// `dbus_message_get_signature`.
    var signature: String { unsafe String(cString: dbus_message_get_signature(raw)) }
    /// `dbus_message_set_no_reply`.
    func setNoReply(_ noReply: Bool) { unsafe dbus_message_set_no_reply(raw, noReply ? 1 : 0) }
}

/// A libdbus message iterator that keeps its message alive.
@safe
struct MessageIterator {
    // SAFETY: `raw` points into `message`'s buffers, which `message` keeps alive for the iterator's lifetime.
    private let message: OwnedMessage
    private var raw = unsafe DBusMessageIter()

    /// An iterator over the message's arguments: `dbus_message_iter_init`. Nil when it has none.
    static func reading(_ message: OwnedMessage) -> MessageIterator? {
        var iterator = MessageIterator(message: message)
        guard unsafe dbus_message_iter_init(message.raw, &iterator.raw) != 0 else { return nil }
        return iterator
    }

    /// An iterator appending arguments: `dbus_message_iter_init_append`.
    static func appending(_ message: OwnedMessage) -> MessageIterator {
        var iterator = MessageIterator(message: message)
        unsafe dbus_message_iter_init_append(message.raw, &iterator.raw)
        return iterator
    }

    private init(message: OwnedMessage) { self.message = message }

    /// `dbus_message_iter_get_arg_type`: the current argument's type, `.invalid` at the end.
    mutating func argumentType() -> DBusTypeCode {
        DBusTypeCode(rawValue: unsafe dbus_message_iter_get_arg_type(&raw)) ?? .invalid
    }

    /// `dbus_message_iter_get_element_type`: element type of the current array.
    mutating func elementType() -> DBusTypeCode {
        DBusTypeCode(rawValue: unsafe dbus_message_iter_get_element_type(&raw)) ?? .invalid
    }

    /// `dbus_message_iter_next`: false at the end.
    @discardableResult
    mutating func next() -> Bool { unsafe dbus_message_iter_next(&raw) != 0 }

    /// `dbus_message_iter_recurse`: an iterator into the current container.
    mutating func recurse() -> MessageIterator {
        var sub = MessageIterator(message: message)
        unsafe dbus_message_iter_recurse(&raw, &sub.raw)
        return sub
    }

    /// `dbus_message_iter_get_signature`: signature of the current argument (freed with `dbus_free`).
    mutating func currentSignature() -> String {
        guard let cString = unsafe dbus_message_iter_get_signature(&raw) else { return "" }
        let signature = unsafe String(cString: cString)
        unsafe dbus_free(cString)
        return signature
    }

    /// The current basic argument: `dbus_message_iter_get_basic` (through `cdbus_iter_get_basic`). Nil for
    /// containers. A UNIX_FD comes back as a new descriptor that the caller owns.
    mutating func basicValue() -> DBusValue? {
        let type = argumentType()
        let value = unsafe cdbus_iter_get_basic(&raw)
        switch type {
        case .byte: return unsafe .byte(value.byt)
        case .boolean: return unsafe .boolean(value.bool_val != 0)
        case .int16: return unsafe .int16(value.i16)
        case .uint16: return unsafe .uint16(value.u16)
        case .int32: return unsafe .int32(value.i32)
        case .uint32: return unsafe .uint32(value.u32)
        case .int64: return unsafe .int64(Int64(value.i64))
        case .uint64: return unsafe .uint64(UInt64(value.u64))
        case .double: return unsafe .double(value.dbl)
        case .unixFD: return unsafe .unixFD(value.fd)
        case .string: return unsafe .string(value.str.map { unsafe String(cString: $0) } ?? "")
        case .objectPath: return unsafe .objectPath(ObjectPath(rawValue: value.str.map { unsafe String(cString: $0) } ?? ""))
        case .signature:
            return unsafe .signature(DBusSignature(rawValue: value.str.map { unsafe String(cString: $0) } ?? ""))
        default: return nil
        }
    }

    /// All bytes of the current `ay` (the iterator must be positioned on the array):
    /// `dbus_message_iter_recurse` + `dbus_message_iter_get_fixed_array`.
    mutating func byteArray() -> [UInt8] {
        var sub = unsafe DBusMessageIter()
        unsafe dbus_message_iter_recurse(&raw, &sub)
        var count: Int32 = 0
        guard let elements = unsafe cdbus_iter_get_fixed_array(&sub, &count), count > 0 else { return [] }
        return unsafe Array(UnsafeRawBufferPointer(start: elements, count: Int(count)))
    }

    /// Appends a basic value: `dbus_message_iter_append_basic` (through `cdbus_iter_append_basic`). Strings are
    /// copied and fds duplicated by libdbus. False for containers or when libdbus refuses the value.
    mutating func appendBasic(_ value: DBusValue) -> Bool {
        var basic = unsafe DBusBasicValue()
        let type: Int32
        switch value {
        case .byte(let v): unsafe basic.byt = v; type = CDBUS_TYPE_BYTE
        case .boolean(let v): unsafe basic.bool_val = v ? 1 : 0; type = CDBUS_TYPE_BOOLEAN
        case .int16(let v): unsafe basic.i16 = v; type = CDBUS_TYPE_INT16
        case .uint16(let v): unsafe basic.u16 = v; type = CDBUS_TYPE_UINT16
        case .int32(let v): unsafe basic.i32 = v; type = CDBUS_TYPE_INT32
        case .uint32(let v): unsafe basic.u32 = v; type = CDBUS_TYPE_UINT32
        case .int64(let v): unsafe basic.i64 = dbus_int64_t(v); type = CDBUS_TYPE_INT64
        case .uint64(let v): unsafe basic.u64 = dbus_uint64_t(v); type = CDBUS_TYPE_UINT64
        case .double(let v): unsafe basic.dbl = v; type = CDBUS_TYPE_DOUBLE
        case .unixFD(let v): unsafe basic.fd = v; type = CDBUS_TYPE_UNIX_FD
        case .string(let v): return append(type: CDBUS_TYPE_STRING, string: v)
        case .objectPath(let v):
            guard isValidObjectPath(v.rawValue) else { return false }
            return append(type: CDBUS_TYPE_OBJECT_PATH, string: v.rawValue)
        case .signature(let v):
            guard v.rawValue.isEmpty || isValidSignature(v.rawValue) else { return false }
            return append(type: CDBUS_TYPE_SIGNATURE, string: v.rawValue)
        default: return false
        }
        return unsafe cdbus_iter_append_basic(&raw, type, basic) != 0
    }

    /// `dbus_message_iter_append_basic` for STRING, OBJECT_PATH and SIGNATURE (libdbus copies the bytes).
    private mutating func append(type: Int32, string: String) -> Bool {
        unsafe string.withCString { cString in
            var value = unsafe DBusBasicValue()
            unsafe value.str = UnsafeMutablePointer(mutating: cString)
            return unsafe cdbus_iter_append_basic(&raw, type, value) != 0
        }
    }

    /// `dbus_message_iter_append_fixed_array` (through `cdbus_iter_append_bytes`) on an open `ay` container.
    @discardableResult
    mutating func append(bytes: [UInt8]) -> Bool {
        unsafe bytes.withUnsafeBytes { buffer in
            unsafe cdbus_iter_append_bytes(&raw, buffer.baseAddress, Int32(buffer.count)) != 0
        }
    }

    /// `dbus_message_iter_open_container`; `signature` is the contained signature for ARRAY and VARIANT, nil otherwise.
    mutating func openContainer(type: DBusTypeCode, signature: String?) -> MessageIterator? {
        var sub = MessageIterator(message: message)
        let ok: Bool
        if let signature {
            ok = unsafe signature.withCString {
                unsafe dbus_message_iter_open_container(&raw, type.rawValue, $0, &sub.raw) != 0
            }
        } else {
            ok = unsafe dbus_message_iter_open_container(&raw, type.rawValue, nil, &sub.raw) != 0
        }
        return ok ? sub : nil
    }

    /// `dbus_message_iter_close_container`.
    @discardableResult
    mutating func closeContainer(_ sub: inout MessageIterator) -> Bool {
        unsafe dbus_message_iter_close_container(&raw, &sub.raw) != 0
    }

    /// `dbus_message_iter_abandon_container_if_open` (after a failed append).
    mutating func abandonContainer(_ sub: inout MessageIterator) {
        unsafe dbus_message_iter_abandon_container_if_open(&raw, &sub.raw)
    }
}

/// `dbus_signature_validate_single`: whether `signature` is exactly one complete type.
func isSingleCompleteType(_ signature: String) -> Bool {
    let result = unsafe withDBusError { error in unsafe dbus_signature_validate_single(signature, error) != 0 }
    return (try? result.get()) ?? false
}

/// `dbus_signature_validate`: whether `signature` is a valid signature (any number of complete types).
func isValidSignature(_ signature: String) -> Bool {
    let result = unsafe withDBusError { error in unsafe dbus_signature_validate(signature, error) != 0 }
    return (try? result.get()) ?? false
}

/// `dbus_validate_path`: whether `path` is a valid object path.
func isValidObjectPath(_ path: String) -> Bool {
    let result = unsafe withDBusError { error in unsafe dbus_validate_path(path, error) != 0 }
    return (try? result.get()) ?? false
}

// MARK: - Watches and timeouts

/// DBUS_MESSAGE_TYPE_* values.
enum DBusMessageType {
    static let methodCall = CDBUS_MESSAGE_TYPE_METHOD_CALL
    static let methodReturn = CDBUS_MESSAGE_TYPE_METHOD_RETURN
    static let error = CDBUS_MESSAGE_TYPE_ERROR
    static let signal = CDBUS_MESSAGE_TYPE_SIGNAL
}

/// DBUS_WATCH_* flags.
enum DBusWatchFlags {
    static let readable = CDBUS_WATCH_READABLE
    static let writable = CDBUS_WATCH_WRITABLE
    static let error = CDBUS_WATCH_ERROR
    static let hangup = CDBUS_WATCH_HANGUP
}

/// A libdbus watch (a file descriptor libdbus wants polled). Valid between its add and remove callbacks.
@safe
struct WatchHandle: Hashable, @unchecked Sendable {
    static func == (lhs: Self, rhs: Self) -> Bool { unsafe lhs.raw == rhs.raw }
    func hash(into hasher: inout Hasher) { unsafe hasher.combine(raw) }

    // SAFETY: only dereferenced on the loop thread between libdbus's add and remove callbacks for it.
    fileprivate let raw: OpaquePointer

    /// `dbus_watch_get_unix_fd`.
    var fileDescriptor: Int32 { unsafe dbus_watch_get_unix_fd(raw) }
    /// `dbus_watch_get_flags` (CDBUS_WATCH_READABLE / WRITABLE).
    var flags: UInt32 { unsafe dbus_watch_get_flags(raw) }
    /// `dbus_watch_get_enabled`.
    var isEnabled: Bool { unsafe dbus_watch_get_enabled(raw) != 0 }
    /// `dbus_watch_handle` with CDBUS_WATCH_* condition flags.
    func handle(_ conditions: UInt32) { unsafe dbus_watch_handle(raw, conditions) }
}

/// A libdbus timeout (used for method-call reply timeouts). Valid between its add and remove callbacks.
@safe
struct TimeoutHandle: Hashable, @unchecked Sendable {
    static func == (lhs: Self, rhs: Self) -> Bool { unsafe lhs.raw == rhs.raw }
    func hash(into hasher: inout Hasher) { unsafe hasher.combine(raw) }

    // SAFETY: as WatchHandle.
    fileprivate let raw: OpaquePointer

    /// `dbus_timeout_get_interval`, milliseconds.
    var intervalMilliseconds: Int32 { unsafe dbus_timeout_get_interval(raw) }
    /// `dbus_timeout_get_enabled`.
    var isEnabled: Bool { unsafe dbus_timeout_get_enabled(raw) != 0 }
    /// `dbus_timeout_handle`.
    func handle() { unsafe _ = dbus_timeout_handle(raw) }
}

/// What the loop thread implements for its connection. Called on the thread running libdbus (the loop thread).
protocol ConnectionEvents: AnyObject {
    func watchAdded(_ watch: WatchHandle)
    func watchRemoved(_ watch: WatchHandle)
    func watchToggled(_ watch: WatchHandle)
    func timeoutAdded(_ timeout: TimeoutHandle)
    func timeoutRemoved(_ timeout: TimeoutHandle)
    func timeoutToggled(_ timeout: TimeoutHandle)
    /// Libdbus wants the loop to wake up (messages to send or dispatch).
    func wakeUp()
    /// A message the fast path did not consume.
    func received(_ message: OwnedMessage)
}

/// A boxed Swift value handed to libdbus as `void *user_data`.
private final class Box<T> {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Retains `box` for libdbus: released by `releaseBox`.
private func retainedContext<T>(_ value: T) -> UnsafeMutableRawPointer {
    unsafe Unmanaged.passRetained(Box(value)).toOpaque()
}

private func unbox<T>(_ context: UnsafeMutableRawPointer?, as type: T.Type) -> T {
    unsafe Unmanaged<Box<T>>.fromOpaque(context!).takeUnretainedValue().value
}

/// A weak reference to the connection's event sink, so that libdbus's references do not keep the loop alive.
private struct WeakEvents {
    weak var events: (any ConnectionEvents)?
}

private let releaseEventsBox: DBusFreeFunction = { context in
    unsafe Unmanaged<Box<WeakEvents>>.fromOpaque(context!).release()
}

// MARK: - Connection

/// Owns one private DBusConnection.
@safe
final class RawConnection: @unchecked Sendable {
    // SAFETY: see the file header: after `start`, every call below happens on the loop thread.
    private let raw: OpaquePointer
    private var closed = false
    /// The notification fast path's routes (read by the filter on the loop thread only).
    let notifications = Notifications()

    private init(raw: OpaquePointer) { unsafe self.raw = raw }

    /// Opens and registers a private connection: `dbus_connection_open_private`, `dbus_bus_register`, and
    /// `dbus_connection_set_exit_on_disconnect(conn, FALSE)` (a dbus-daemon restart must not `_exit` the daemon).
    static func open(address: String) -> Result<RawConnection, DBusErrorInfo> {
        _ = LibDBus.threadsInitialised
        let opened = unsafe withDBusError { error in unsafe dbus_connection_open_private(address, error) }
        switch unsafe opened {
        case .failure(let info): return .failure(info)
        case .success(let raw):
            guard let raw = unsafe raw else {
                return .failure(DBusErrorInfo(name: "org.freedesktop.DBus.Error.NoMemory", message: "out of memory"))
            }
            let connection = unsafe RawConnection(raw: raw)
            unsafe dbus_connection_set_exit_on_disconnect(raw, 0)
            let registered = unsafe withDBusError { error in unsafe dbus_bus_register(raw, error) }
            if case .failure(let info) = registered {
                connection.close()
                return .failure(info)
            }
            return .success(connection)
        }
    }

    /// `dbus_bus_get_unique_name`.
    var uniqueName: String { unsafe dbus_bus_get_unique_name(raw).map { unsafe String(cString: $0) } ?? "" }

    /// `dbus_connection_get_is_connected`.
    var isConnected: Bool { unsafe dbus_connection_get_is_connected(raw) != 0 }

    /// `dbus_connection_can_send_type` for UNIX_FD.
    var canPassFileDescriptors: Bool { unsafe dbus_connection_can_send_type(raw, CDBUS_TYPE_UNIX_FD) != 0 }

    /// Installs the loop's callbacks: `dbus_connection_set_watch_functions`, `dbus_connection_set_timeout_functions`,
    /// `dbus_connection_set_wakeup_main_function`, `dbus_connection_set_dispatch_status_function` and
    /// `dbus_connection_add_filter`.
    func install(_ events: some ConnectionEvents) -> Bool {
        let weakEvents = WeakEvents(events: events)
        let ok1 = unsafe dbus_connection_set_watch_functions(
            raw,
            { watch, context in
                guard let watch = unsafe watch, let events = unsafe unbox(context, as: WeakEvents.self).events else { return 1 }
                events.watchAdded(unsafe WatchHandle(raw: watch))
                return 1
            },
            { watch, context in
                guard let watch = unsafe watch, let events = unsafe unbox(context, as: WeakEvents.self).events else { return }
                events.watchRemoved(unsafe WatchHandle(raw: watch))
            },
            { watch, context in
                guard let watch = unsafe watch, let events = unsafe unbox(context, as: WeakEvents.self).events else { return }
                events.watchToggled(unsafe WatchHandle(raw: watch))
            },
            retainedContext(weakEvents), releaseEventsBox)
        let ok2 = unsafe dbus_connection_set_timeout_functions(
            raw,
            { timeout, context in
                guard let timeout = unsafe timeout, let events = unsafe unbox(context, as: WeakEvents.self).events else { return 1 }
                events.timeoutAdded(unsafe TimeoutHandle(raw: timeout))
                return 1
            },
            { timeout, context in
                guard let timeout = unsafe timeout, let events = unsafe unbox(context, as: WeakEvents.self).events else { return }
                events.timeoutRemoved(unsafe TimeoutHandle(raw: timeout))
            },
            { timeout, context in
                guard let timeout = unsafe timeout, let events = unsafe unbox(context, as: WeakEvents.self).events else { return }
                events.timeoutToggled(unsafe TimeoutHandle(raw: timeout))
            },
            retainedContext(weakEvents), releaseEventsBox)
        unsafe dbus_connection_set_wakeup_main_function(
            raw,
            { context in unsafe unbox(context, as: WeakEvents.self).events?.wakeUp() },
            retainedContext(weakEvents), releaseEventsBox)
        unsafe dbus_connection_set_dispatch_status_function(
            raw,
            { _, status, context in
                if status == DBUS_DISPATCH_DATA_REMAINS { unsafe unbox(context, as: WeakEvents.self).events?.wakeUp() }
            },
            retainedContext(weakEvents), releaseEventsBox)
        let filterContext = unsafe retainedContext(FilterContext(events: weakEvents, notifications: notifications))
        let ok3 = unsafe dbus_connection_add_filter(
            raw,
            { _, message, context in
                guard let message = unsafe message else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
                let filter = unsafe unbox(context, as: FilterContext.self)
                if unsafe filter.notifications.deliver(message) { return DBUS_HANDLER_RESULT_HANDLED }
                filter.events.events?.received(unsafe OwnedMessage(retaining: message))
                // Let libdbus answer method calls to us with UnknownMethod.
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            },
            filterContext,
            { context in unsafe Unmanaged<Box<FilterContext>>.fromOpaque(context!).release() })
        return ok1 != 0 && ok2 != 0 && ok3 != 0
    }

    /// `dbus_connection_send` (no reply expected). False when out of memory.
    @discardableResult
    func send(_ message: OwnedMessage) -> Bool {
        unsafe dbus_connection_send(raw, message.raw, nil) != 0
    }

    /// `dbus_connection_send_with_reply` + `dbus_pending_call_set_notify`; `completion` gets the reply or error
    /// message (`dbus_pending_call_steal_reply`), NoReply after `timeoutMilliseconds`, or nil when the connection is
    /// closed. The pending call is dropped with `dbus_pending_call_unref`.
    func send(_ message: OwnedMessage, timeoutMilliseconds: Int32, completion: @escaping (OwnedMessage?) -> Void) {
        var pending: OpaquePointer?
        guard unsafe dbus_connection_send_with_reply(raw, message.raw, &pending, timeoutMilliseconds) != 0,
              let pending = unsafe pending
        else {
            completion(nil)
            return
        }
        let ok = unsafe dbus_pending_call_set_notify(
            pending,
            { pending, context in
                guard let pending = unsafe pending else { return }
                let completion = unsafe unbox(context, as: ((OwnedMessage?) -> Void).self)
                let reply = unsafe dbus_pending_call_steal_reply(pending).map { unsafe OwnedMessage(taking: $0) }
                completion(reply)
            },
            retainedContext(completion),
            { context in unsafe Unmanaged<Box<(OwnedMessage?) -> Void>>.fromOpaque(context!).release() })
        if ok == 0 { completion(nil) }
        unsafe dbus_pending_call_unref(pending)
    }

    /// `dbus_connection_dispatch` until no message is left; false when the connection needs memory.
    func dispatchAll() {
        while unsafe dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
    }

    /// `dbus_connection_get_dispatch_status` == DATA_REMAINS.
    var hasMessagesToDispatch: Bool { unsafe dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS }

    /// `dbus_connection_close` then `dbus_connection_unref`. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        unsafe dbus_connection_close(raw)
        unsafe dbus_connection_unref(raw)
    }

    deinit { close() }
}

private struct FilterContext {
    let events: WeakEvents
    let notifications: Notifications
}

// MARK: - Notification fast path

/// Receives one notification: the value bytes (valid only during the call) and the host time it was read, in
/// microseconds of CLOCK_MONOTONIC. Runs on the D-Bus loop thread.
public typealias NotificationHandler = @Sendable (UnsafeRawBufferPointer, _ hostMicros: Int64) -> Void

/// A `NotificationHandler` held by value. The handler only sees its buffer during the call, so holding it is safe.
@safe
struct NotificationSink: Sendable {
    // SAFETY: the closure's UnsafeRawBufferPointer argument is created by the caller for the call's duration only.
    private let handler: NotificationHandler

    init(_ handler: @escaping NotificationHandler) { unsafe self.handler = handler }

    /// Calls the handler.
    // HOT PATH: no allocation.
    func callAsFunction(_ bytes: UnsafeRawBufferPointer, _ hostMicros: Int64) { unsafe handler(bytes, hostMicros) }
}

/// Routes `PropertiesChanged("org.bluez.GattCharacteristic1", {"Value": ay}, [])` signals on registered
/// characteristic paths straight to a handler, without allocating.
@safe
final class Notifications: @unchecked Sendable {
    // SAFETY: `routes` is mutated and read only on the loop thread (the filter runs there, during dispatch).
    private struct Route {
        var path: ContiguousArray<CChar>
        var handler: NotificationSink
        var id: Int
    }

    private var routes: [Route] = []
    private var nextID = 0

    /// Adds a route (loop thread only); returns its id for `remove`.
    func add(path: String, handler: NotificationSink) -> Int {
        nextID += 1
        routes.append(Route(path: ContiguousArray(path.utf8CString), handler: handler, id: nextID))
        return nextID
    }

    /// Removes a route (loop thread only).
    func remove(_ id: Int) { routes.removeAll { $0.id == id } }

    private static let propertiesChanged: StaticString = "PropertiesChanged"
    private static let propertiesInterface: StaticString = "org.freedesktop.DBus.Properties"
    private static let characteristicInterface: StaticString = "org.bluez.GattCharacteristic1"
    private static let valueKey: StaticString = "Value"

    private static func equal(_ cString: UnsafePointer<CChar>, _ literal: StaticString) -> Bool {
        unsafe strcmp(cString, UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
    }

    /// Delivers a `Value` notification for a routed path and returns true when the signal carried nothing else.
    /// Reads: `dbus_message_get_type`, `_get_member`, `_get_interface`, `_get_path`, `dbus_message_iter_init`,
    /// `_get_arg_type`, `_get_basic`, `_next`, `_recurse`, `_get_fixed_array`.
    // HOT PATH: no allocation, lock, syscall (besides clock_gettime's vDSO) or log.
    func deliver(_ message: OwnedMessage) -> Bool { unsafe deliver(message.raw) }

    fileprivate func deliver(_ message: OpaquePointer) -> Bool {
        guard !routes.isEmpty, unsafe dbus_message_get_type(message) == CDBUS_MESSAGE_TYPE_SIGNAL,
              let member = unsafe dbus_message_get_member(message), unsafe Self.equal(member, Self.propertiesChanged),
              let interface = unsafe dbus_message_get_interface(message),
              unsafe Self.equal(interface, Self.propertiesInterface),
              let path = unsafe dbus_message_get_path(message)
        else { return false }
        guard let index = routes.firstIndex(where: { route in
            unsafe route.path.withUnsafeBufferPointer { unsafe strcmp($0.baseAddress!, path) == 0 }
        }) else { return false }

        var arguments = unsafe DBusMessageIter()
        guard unsafe dbus_message_iter_init(message, &arguments) != 0,
              unsafe dbus_message_iter_get_arg_type(&arguments) == CDBUS_TYPE_STRING,
              let changedInterface = unsafe cdbus_iter_get_basic(&arguments).str,
              unsafe Self.equal(changedInterface, Self.characteristicInterface),
              unsafe dbus_message_iter_next(&arguments) != 0,
              unsafe dbus_message_iter_get_arg_type(&arguments) == CDBUS_TYPE_ARRAY
        else { return false }

        var onlyValue = true
        var delivered = false
        var entries = unsafe DBusMessageIter()
        unsafe dbus_message_iter_recurse(&arguments, &entries)
        while unsafe dbus_message_iter_get_arg_type(&entries) == CDBUS_TYPE_DICT_ENTRY {
            var entry = unsafe DBusMessageIter()
            unsafe dbus_message_iter_recurse(&entries, &entry)
            if let key = unsafe cdbus_iter_get_basic(&entry).str, unsafe Self.equal(key, Self.valueKey),
               unsafe dbus_message_iter_next(&entry) != 0,
               unsafe dbus_message_iter_get_arg_type(&entry) == CDBUS_TYPE_VARIANT {
                var variant = unsafe DBusMessageIter()
                unsafe dbus_message_iter_recurse(&entry, &variant)
                if unsafe dbus_message_iter_get_arg_type(&variant) == CDBUS_TYPE_ARRAY,
                   unsafe dbus_message_iter_get_element_type(&variant) == CDBUS_TYPE_BYTE {
                    var bytes = unsafe DBusMessageIter()
                    unsafe dbus_message_iter_recurse(&variant, &bytes)
                    var count: Int32 = 0
                    let elements = unsafe cdbus_iter_get_fixed_array(&bytes, &count)
                    let now = Clock.monotonicMicros()
                    unsafe routes[index].handler(UnsafeRawBufferPointer(start: elements, count: Int(count)), now)
                    delivered = true
                } else {
                    onlyValue = false
                }
            } else {
                onlyValue = false
            }
            unsafe dbus_message_iter_next(&entries)
        }
        // Invalidated properties also go to the general path.
        if unsafe dbus_message_iter_next(&arguments) != 0,
           unsafe dbus_message_iter_get_arg_type(&arguments) == CDBUS_TYPE_ARRAY {
            var invalidated = unsafe DBusMessageIter()
            unsafe dbus_message_iter_recurse(&arguments, &invalidated)
            if unsafe dbus_message_iter_get_arg_type(&invalidated) != CDBUS_TYPE_INVALID { onlyValue = false }
        }
        return delivered && onlyValue
    }
}
