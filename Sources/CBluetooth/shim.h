// CBluetooth: the BlueZ HCI socket definitions (libbluetooth-dev's headers) for Swift. Not API: only
// griptrack's Capture/MonitorSocket.swift uses it, for `struct sockaddr_hci` and the channel constants.
//
// Nothing of libbluetooth is linked: the monitor channel needs only socket(2), bind(2) and read(2), so the header
// structs and macros are all griptrack takes, and the binary needs no libbluetooth3 on the Pi.
//
// AF_BLUETOOTH, BTPROTO_HCI, HCI_DEV_NONE and HCI_CHANNEL_MONITOR are plain integer macros, which ClangImporter
// imports; they are re-exported as typed consts anyway so the Swift side needs no casts.
#ifndef CBLUETOOTH_SHIM_H
#define CBLUETOOTH_SHIM_H

#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>

static const int CBT_AF_BLUETOOTH = AF_BLUETOOTH;
static const int CBT_BTPROTO_HCI = BTPROTO_HCI;
static const unsigned short CBT_HCI_DEV_NONE = HCI_DEV_NONE;
static const unsigned short CBT_HCI_CHANNEL_MONITOR = HCI_CHANNEL_MONITOR;

#endif
