// CDBus: libdbus-1 for Swift. Not API: only GripBlueZ/Internal/LibDBus.swift uses it.
//
// Why this header exists (docs/bluez.md §5):
// - DBUS_TYPE_* are `((int) 'x')` casts that ClangImporter refuses, so they are re-exported as static consts.
// - dbus_message_append_args / get_args are variadic and unavailable in Swift; the helpers below read and
//   append one basic value through the DBusBasicValue union instead.
#ifndef CDBUS_SHIM_H
#define CDBUS_SHIM_H

#include <dbus/dbus.h>
#include <string.h>

static const int CDBUS_TYPE_INVALID = DBUS_TYPE_INVALID;
static const int CDBUS_TYPE_BYTE = DBUS_TYPE_BYTE;
static const int CDBUS_TYPE_BOOLEAN = DBUS_TYPE_BOOLEAN;
static const int CDBUS_TYPE_INT16 = DBUS_TYPE_INT16;
static const int CDBUS_TYPE_UINT16 = DBUS_TYPE_UINT16;
static const int CDBUS_TYPE_INT32 = DBUS_TYPE_INT32;
static const int CDBUS_TYPE_UINT32 = DBUS_TYPE_UINT32;
static const int CDBUS_TYPE_INT64 = DBUS_TYPE_INT64;
static const int CDBUS_TYPE_UINT64 = DBUS_TYPE_UINT64;
static const int CDBUS_TYPE_DOUBLE = DBUS_TYPE_DOUBLE;
static const int CDBUS_TYPE_STRING = DBUS_TYPE_STRING;
static const int CDBUS_TYPE_OBJECT_PATH = DBUS_TYPE_OBJECT_PATH;
static const int CDBUS_TYPE_SIGNATURE = DBUS_TYPE_SIGNATURE;
static const int CDBUS_TYPE_UNIX_FD = DBUS_TYPE_UNIX_FD;
static const int CDBUS_TYPE_ARRAY = DBUS_TYPE_ARRAY;
static const int CDBUS_TYPE_VARIANT = DBUS_TYPE_VARIANT;
static const int CDBUS_TYPE_STRUCT = DBUS_TYPE_STRUCT;
static const int CDBUS_TYPE_DICT_ENTRY = DBUS_TYPE_DICT_ENTRY;

static const int CDBUS_MESSAGE_TYPE_METHOD_CALL = DBUS_MESSAGE_TYPE_METHOD_CALL;
static const int CDBUS_MESSAGE_TYPE_METHOD_RETURN = DBUS_MESSAGE_TYPE_METHOD_RETURN;
static const int CDBUS_MESSAGE_TYPE_ERROR = DBUS_MESSAGE_TYPE_ERROR;
static const int CDBUS_MESSAGE_TYPE_SIGNAL = DBUS_MESSAGE_TYPE_SIGNAL;

static const unsigned int CDBUS_WATCH_READABLE = DBUS_WATCH_READABLE;
static const unsigned int CDBUS_WATCH_WRITABLE = DBUS_WATCH_WRITABLE;
static const unsigned int CDBUS_WATCH_ERROR = DBUS_WATCH_ERROR;
static const unsigned int CDBUS_WATCH_HANGUP = DBUS_WATCH_HANGUP;

/// Reads the current basic value (any fixed type, string, object path, signature or unix fd) of `iter`.
/// For DBUS_TYPE_UNIX_FD the result's `fd` is a new descriptor the caller owns and must close.
static inline DBusBasicValue cdbus_iter_get_basic(DBusMessageIter *iter) {
    DBusBasicValue value;
    memset(&value, 0, sizeof value);
    dbus_message_iter_get_basic(iter, &value);
    return value;
}

/// Appends one basic value of `type`; for strings `value.str` must stay valid during the call (libdbus copies it).
static inline dbus_bool_t cdbus_iter_append_basic(DBusMessageIter *iter, int type, DBusBasicValue value) {
    return dbus_message_iter_append_basic(iter, type, &value);
}

/// Appends a byte array's elements to an open `ay` container iterator.
static inline dbus_bool_t cdbus_iter_append_bytes(DBusMessageIter *array_iter, const void *bytes, int count) {
    return dbus_message_iter_append_fixed_array(array_iter, DBUS_TYPE_BYTE, &bytes, count);
}

/// Reads all elements of a fixed-type array from the array's *sub*-iterator without copying.
static inline const void *cdbus_iter_get_fixed_array(DBusMessageIter *sub_iter, int *count) {
    const void *elements = NULL;
    dbus_message_iter_get_fixed_array(sub_iter, &elements, count);
    return elements;
}

#endif
