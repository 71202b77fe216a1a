#!/usr/bin/python3
"""An emulated Tindeq Progressor served by bluetoothd itself (docs/bluez.md, "The real stack in a VM").

It registers the Progressor's GATT database with `org.bluez.GattManager1.RegisterApplication` and its
advertisement with `org.bluez.LEAdvertisingManager1.RegisterAdvertisement` on one adapter (hci1 in the VM), so a
central on another adapter reaches it through the kernel, the emulated controllers and bluetoothd's own ATT server,
as it would reach the device. The shape follows BlueZ's test/example-gatt-server and test/example-advertisement.

What it plays is a capture of the simulator (captures/*.btsnoop, read by btsnoop_att.py): each START written to the
control point plays the capture's next segment, every notification at its capture time after the capture's START
(divided by --speed), byte for byte. Battery, version and identifier get the simulator's answers; tare and STOP are
noted (STOP ends the playing segment). Where the capture's link was lost it stops playing and reports it; with
--link-loss `disconnect` it then drops the link from this side when told to ({"drop": true} on stdin) and stays away
for the capture's gap (no advertisement), as a device running out of range would; with `report` the test breaks
the link itself (bluetoothd killed, the central's adapter powered off).

Every event is one JSON line on stdout ({"event": ..., "t": monotonic seconds}), for the scenario runner; with
--commands it reads JSON lines on stdin that load the next capture or make it quiet (one process serves every
scenario: its Python start takes about 10 s in the VM). When bluetoothd leaves the bus and comes back it registers
again. SIGTERM or the end of stdin stops it.
"""
import argparse
import json
import os
import signal
import struct
import sys
import time

import dbus
import dbus.exceptions
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import btsnoop_att  # noqa: E402

BLUEZ = "org.bluez"
OBJECT_MANAGER = "org.freedesktop.DBus.ObjectManager"
PROPERTIES = "org.freedesktop.DBus.Properties"
GATT_MANAGER = "org.bluez.GattManager1"
ADVERTISING_MANAGER = "org.bluez.LEAdvertisingManager1"
SERVICE = "org.bluez.GattService1"
CHARACTERISTIC = "org.bluez.GattCharacteristic1"
ADVERTISEMENT = "org.bluez.LEAdvertisement1"

PROGRESSOR_SERVICE = "7e4e1701-1ea6-40c9-9dcc-13d34ffead57"
DATA_POINT = "7e4e1702-1ea6-40c9-9dcc-13d34ffead57"
CONTROL_POINT = "7e4e1703-1ea6-40c9-9dcc-13d34ffead57"
# The Nordic buttonless DFU service the device also has (the simulator's discovery lists it); never used.
DFU_SERVICE = "0000fe59-0000-1000-8000-00805f9b34fb"
DFU_CONTROL = "8ec90001-f315-4f60-9fb8-838830daea50"

TARE, START, STOP, VERSION, SLEEP, BATTERY, IDENTIFIER = 0x64, 0x65, 0x66, 0x6B, 0x6E, 0x6F, 0x70
COMMAND_NAMES = {TARE: "tare", START: "start", STOP: "stop", VERSION: "version", SLEEP: "sleep",
                 BATTERY: "battery", IDENTIFIER: "identifier"}
# The simulator's answers (Sources/GripSimulator/SessionRenderer.swift).
ANSWERS = {
    BATTERY: bytes([0x00, 0x04]) + struct.pack("<I", 3912),
    VERSION: bytes([0x00, 7]) + b"1.2.3.4",
    IDENTIFIER: bytes([0x00, 0x06, 0x19, 0x17, 0x4A, 0x6B, 0xD3, 0xF4]),
}


def emit(event, **fields):
    print(json.dumps({"event": event, "t": round(time.monotonic(), 6), **fields}), flush=True)


class InvalidArgs(dbus.exceptions.DBusException):
    _dbus_error_name = "org.freedesktop.DBus.Error.InvalidArgs"


class NotSupported(dbus.exceptions.DBusException):
    _dbus_error_name = "org.bluez.Error.NotSupported"


class Application(dbus.service.Object):
    def __init__(self, bus, path):
        self.path, self.services = path, []
        super().__init__(bus, path)

    @dbus.service.method(OBJECT_MANAGER, out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        objects = {}
        for service in self.services:
            objects[dbus.ObjectPath(service.path)] = service.properties()
            for characteristic in service.characteristics:
                objects[dbus.ObjectPath(characteristic.path)] = characteristic.properties()
        return objects


class Service(dbus.service.Object):
    def __init__(self, bus, path, uuid):
        self.path, self.uuid, self.characteristics = path, uuid, []
        super().__init__(bus, path)

    def properties(self):
        return {SERVICE: {"UUID": self.uuid, "Primary": True,
                          "Characteristics": dbus.Array([c.path for c in self.characteristics], signature="o")}}

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface != SERVICE:
            raise InvalidArgs()
        return self.properties()[SERVICE]


class Characteristic(dbus.service.Object):
    def __init__(self, bus, service, index, uuid, flags, on_write=None, on_notify=None):
        self.path = f"{service.path}/char{index}"
        self.service, self.uuid, self.flags = service, uuid, flags
        self.on_write, self.on_notify = on_write, on_notify
        self.notifying, self.value = False, b""
        super().__init__(bus, self.path)
        service.characteristics.append(self)

    def properties(self):
        return {CHARACTERISTIC: {"Service": dbus.ObjectPath(self.service.path), "UUID": self.uuid,
                                 "Flags": dbus.Array(self.flags, signature="s")}}

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface != CHARACTERISTIC:
            raise InvalidArgs()
        return self.properties()[CHARACTERISTIC]

    @dbus.service.method(CHARACTERISTIC, in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, options):
        raise NotSupported()

    @dbus.service.method(CHARACTERISTIC, in_signature="aya{sv}")
    def WriteValue(self, value, options):
        if self.on_write is None:
            raise NotSupported()
        self.on_write(bytes(value), {str(k): str(v) for k, v in options.items()})

    @dbus.service.method(CHARACTERISTIC)
    def StartNotify(self):
        if not self.notifying:
            self.notifying = True
            if self.on_notify:
                self.on_notify(True)

    @dbus.service.method(CHARACTERISTIC)
    def StopNotify(self):
        if self.notifying:
            self.notifying = False
            if self.on_notify:
                self.on_notify(False)

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def notify(self, value):
        """One notification: bluetoothd sends a Handle Value Notification per Value change while notifying."""
        if not self.notifying:
            return False
        self.PropertiesChanged(CHARACTERISTIC, {"Value": dbus.Array(value, signature="y")}, [])
        return True


class Advertisement(dbus.service.Object):
    def __init__(self, bus, path, name):
        self.path, self.name = path, name
        super().__init__(bus, path)

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface != ADVERTISEMENT:
            raise InvalidArgs()
        return {"Type": "peripheral", "LocalName": self.name,
                "ServiceUUIDs": dbus.Array([PROGRESSOR_SERVICE], signature="s")}

    @dbus.service.method(ADVERTISEMENT)
    def Release(self):
        emit("advertisement_released")


class Progressor:
    def __init__(self, bus, arguments):
        self.bus, self.arguments = bus, arguments
        self.adapter_path = f"/org/bluez/{arguments.adapter}"
        self.segments, self.link_loss, self.speed = [], arguments.link_loss, arguments.speed
        # Notifications sent since the last load (frames and command answers): what the central should have seen.
        self.notified = 0
        self.playing, self.timer, self.connected_device = None, None, None
        self.registered, self.away = False, False
        self.application = Application(bus, "/com/griptrack/progressor")
        service = Service(bus, "/com/griptrack/progressor/service0", PROGRESSOR_SERVICE)
        self.data = Characteristic(bus, service, 0, DATA_POINT, ["notify"], on_notify=self.notify_changed)
        self.control = Characteristic(bus, service, 1, CONTROL_POINT, ["write", "write-without-response"],
                                      on_write=self.control_written)
        dfu = Service(bus, "/com/griptrack/progressor/service1", DFU_SERVICE)
        Characteristic(bus, dfu, 0, DFU_CONTROL, ["write", "indicate"], on_write=lambda value, options: None)
        self.application.services = [service, dfu]
        self.advertisement = Advertisement(bus, "/com/griptrack/progressor/advertisement0", arguments.name)
        self.reannouncing = False
        self.advertising_wanted = self.advertising_registered = self.advertising_busy = False
        if arguments.reannounce > 0:
            GLib.timeout_add(int(arguments.reannounce * 1000), self.reannounce)
        if arguments.capture:
            self.load(arguments.capture)
        bus.watch_name_owner(BLUEZ, self.bluez_owner_changed)
        bus.add_signal_receiver(self.interfaces_added, signal_name="InterfacesAdded", dbus_interface=OBJECT_MANAGER,
                                bus_name=BLUEZ)
        bus.add_signal_receiver(self.properties_changed, signal_name="PropertiesChanged", dbus_interface=PROPERTIES,
                                bus_name=BLUEZ, path_keyword="path")

    def load(self, capture, link_loss=None, speed=None):
        """The session to play from now on (a scenario's); advertises once it is loaded."""
        self.stop_playing("load")
        self.segments = list(btsnoop_att.Session(capture, DATA_POINT, CONTROL_POINT).segments)
        self.link_loss = link_loss or self.link_loss
        self.speed = speed or self.speed
        self.away, self.notified = False, 0
        emit("loaded", capture=os.path.basename(capture), link_loss=self.link_loss, speed=self.speed,
             segments=[{"frames": len(s.frames), "end": s.end, "gap": s.gap} for s in self.segments])
        if self.advertising_registered and self.advertising_wanted and not self.advertising_busy:
            emit("advertising")  # still: the next scenario's central finds it as it is
        else:
            self.advertise(True)

    def command(self, line):
        """One JSON command from stdin: {"load": CAPTURE, "link_loss": ..., "speed": ...} or {"quiet": true}
        (stop advertising until the next load)."""
        try:
            request = json.loads(line)
        except ValueError:
            emit("bad_command", line=line.strip())
            return
        if "load" in request:
            self.load(request["load"], request.get("link_loss"), request.get("speed"))
        elif request.get("drop"):
            self.drop_link(getattr(self, "lost_gap", None))
        elif request.get("quiet"):
            self.stop_playing("quiet")
            self.away = True
            self.advertise(False)

    # bluetoothd coming and going

    def bluez_owner_changed(self, owner):
        if not owner:
            emit("bluetoothd_gone")
            self.registered = self.advertising_registered = self.advertising_busy = False
            self.connected_device = None
            # Nobody calls StopNotify when bluetoothd dies; the next one calls StartNotify when its CCC is written.
            for characteristic in (self.data, self.control):
                characteristic.notifying = False
            self.stop_playing("bluetoothd_gone")
            return
        emit("bluetoothd_present")
        GLib.timeout_add(200, self.register)

    def register(self):
        """RegisterApplication and RegisterAdvertisement asynchronously: bluetoothd calls back into this process
        (GetManagedObjects, GetAll) before it answers, so a blocking call would deadlock until its timeout."""
        try:
            adapter = self.bus.get_object(BLUEZ, self.adapter_path)
            props = dbus.Interface(adapter, PROPERTIES)
            if not props.Get("org.bluez.Adapter1", "Powered"):
                props.Set("org.bluez.Adapter1", "Powered", dbus.Boolean(True))
            # The GAP Device Name a central reads after connecting is the adapter's alias: bluetoothd then replaces
            # the advertised name with it (Device1.Name), so it must be the device's name, as on the device.
            if props.Get("org.bluez.Adapter1", "Alias") != self.arguments.name:
                props.Set("org.bluez.Adapter1", "Alias", dbus.String(self.arguments.name))
        except dbus.exceptions.DBusException as error:
            emit("register_failed", error=error.get_dbus_name(), message=error.get_dbus_message())
            return True  # try again
        # The options' signature is spelled out: after a bluetoothd restart dbus-python may not know it.
        dbus.Interface(adapter, GATT_MANAGER).RegisterApplication(
            self.application.path, dbus.Dictionary({}, signature="sv"), reply_handler=self.registered_application,
            error_handler=lambda error: self.failed("register_failed", error, retry=self.register))
        return False

    def registered_application(self):
        self.registered = True
        emit("registered", adapter=self.arguments.adapter)
        self.advertise(not self.away)

    def failed(self, event, error, retry=None, **fields):
        emit(event, error=error.get_dbus_name(), message=error.get_dbus_message(), **fields)
        if retry is not None:
            GLib.timeout_add(1000, retry)

    def advertise(self, on):
        """Wants the advertisement registered (on) or not; one Register/Unregister in flight at a time."""
        self.advertising_wanted = on
        self.reconcile_advertising()

    @property
    def advertising(self):
        return self.advertising_registered

    def reconcile_advertising(self):
        if self.advertising_busy or not self.registered or self.advertising_wanted == self.advertising_registered:
            return False
        on, self.advertising_busy = self.advertising_wanted, True
        manager = dbus.Interface(self.bus.get_object(BLUEZ, self.adapter_path), ADVERTISING_MANAGER)

        def done():
            self.advertising_busy, self.advertising_registered = False, on
            if not self.reannouncing:
                emit("advertising" if on else "not_advertising")
            self.reannouncing = self.reannouncing and not on
            self.reconcile_advertising()

        def failed(error):
            self.advertising_busy = False
            self.failed("advertise_failed", error, on=on)
            GLib.timeout_add(500, self.reconcile_advertising)

        if on:
            manager.RegisterAdvertisement(self.advertisement.path, dbus.Dictionary({}, signature="sv"),
                                          reply_handler=done, error_handler=failed)
        else:
            manager.UnregisterAdvertisement(self.advertisement.path, reply_handler=done, error_handler=failed)
        return False

    def reannounce(self):
        """Advertises again every few seconds while unconnected: btvirt's emulated controllers report an advertiser
        to a scanner only when either of them enables (emulator/btdev.c: cmd_set_scan_enable_complete,
        le_set_adv_enable_complete), never periodically as a radio repeats it, and the kernel drops that one report
        when it arrives before its discovery is marked active. A real device is heard again at its next interval."""
        if self.advertising_wanted and self.advertising_registered and not self.advertising_busy \
                and self.connected_device is None and not self.away:
            # Unregister; reconcile_advertising registers again at once (still wanted).
            self.reannouncing = True
            self.advertising_wanted = False
            self.reconcile_advertising()
            self.advertising_wanted = True
        return True

    def interfaces_added(self, path, interfaces):
        device = interfaces.get("org.bluez.Device1")
        if device is not None and path.startswith(self.adapter_path + "/") and device.get("Connected"):
            # A central that connects first creates its device object already connected: no PropertiesChanged.
            self.connected_device = path
            emit("connected", central=str(device.get("Address")))

    def properties_changed(self, interface, changed, invalidated, path=None):
        if interface != "org.bluez.Device1" or not path.startswith(self.adapter_path + "/") or "Connected" not in changed:
            return
        if changed["Connected"]:
            self.connected_device = path
            emit("connected", central=path.rsplit("/", 1)[-1][4:].replace("_", ":"))
        else:
            if self.connected_device == path:
                self.connected_device = None
            emit("disconnected", central=path.rsplit("/", 1)[-1][4:].replace("_", ":"))
            self.stop_playing("disconnected")

    # GATT

    def notify_changed(self, on):
        emit("notify_on" if on else "notify_off")
        if not on:
            self.stop_playing("notify_off")

    def control_written(self, value, options):
        opcode = value[0] if value else None
        name = COMMAND_NAMES.get(opcode, f"0x{opcode:02x}" if opcode is not None else "empty")
        emit("command", command=name, bytes=value.hex(), type=options.get("type", ""))
        if opcode in ANSWERS:
            self.notified += self.data.notify(ANSWERS[opcode])
        elif opcode == START:
            self.start_playing()
        elif opcode in (STOP, SLEEP):
            self.stop_playing(name)

    # Playback

    def start_playing(self):
        if self.playing is not None:
            emit("start_while_playing")  # the capture goes on; its device clock is not restarted
            return
        if not self.segments:
            emit("no_segment_left")
            return
        segment = self.segments.pop(0)
        self.playing = {"segment": segment, "index": 0, "t0": time.monotonic(), "sent": 0, "unsent": 0}
        emit("segment_start", frames=len(segment.frames), end=segment.end)
        self.schedule()

    def schedule(self):
        playing = self.playing
        segment = playing["segment"]
        if playing["index"] < len(segment.frames):
            due = playing["t0"] + segment.frames[playing["index"]][0] / self.speed
        else:
            due = playing["t0"] + (segment.end_offset or 0) / self.speed
        self.timer = GLib.timeout_add(max(0, int((due - time.monotonic()) * 1000)), self.tick)

    def tick(self):
        self.timer = None
        playing = self.playing
        if playing is None:
            return False
        segment, now = playing["segment"], time.monotonic()
        frames = segment.frames
        while playing["index"] < len(frames) and playing["t0"] + frames[playing["index"]][0] / self.speed <= now:
            if self.data.notify(frames[playing["index"]][1]):
                playing["sent"] += 1
                self.notified += 1
            else:
                playing["unsent"] += 1
            playing["index"] += 1
        if playing["index"] < len(frames) or playing["t0"] + (segment.end_offset or 0) / self.speed > now:
            self.schedule()
            return False
        self.finish_segment()
        return False

    def finish_segment(self):
        playing, self.playing = self.playing, None
        segment = playing["segment"]
        emit("segment_end", end=segment.end, sent=playing["sent"], unsent=playing["unsent"], notified=self.notified)
        if segment.end == "link_lost":
            # The runner breaks the link itself ("report"), or says when this side may drop it ({"drop": true}):
            # once the central has everything sent before it. Under an emulated CPU the central's bluetoothd can
            # lag seconds behind, and what it has not read yet is lost with the link (docs/bluez.md).
            self.lost_gap = segment.gap
            emit("link_loss_due", notified=self.notified)
        if not self.segments:
            emit("done")

    def stop_playing(self, why):
        if self.playing is None:
            return
        if self.timer is not None:
            GLib.source_remove(self.timer)
            self.timer = None
        playing, self.playing = self.playing, None
        emit("segment_cut", why=why, sent=playing["sent"], unsent=playing["unsent"],
             left=len(playing["segment"].frames) - playing["index"])

    def drop_link(self, gap):
        """The device goes away: no advertisement, the link dropped from this side; back after the capture's gap."""
        self.away = True
        self.advertise(False)
        if self.connected_device is None:
            objects = dbus.Interface(self.bus.get_object(BLUEZ, "/"), OBJECT_MANAGER).GetManagedObjects()
            self.connected_device = next((path for path, interfaces in objects.items()
                                          if path.startswith(self.adapter_path + "/")
                                          and interfaces.get("org.bluez.Device1", {}).get("Connected")), None)
        if self.connected_device is not None:
            dbus.Interface(self.bus.get_object(BLUEZ, self.connected_device), "org.bluez.Device1").Disconnect(
                reply_handler=lambda: emit("dropped_link"),
                error_handler=lambda error: self.failed("drop_failed", error))
        if gap is not None:
            GLib.timeout_add(int(gap / self.speed * 1000), self.come_back)

    def come_back(self):
        self.away = False
        self.advertise(True)
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--capture", help="btsnoop capture of a Progressor session (captures/); else the first "
                        "load command on stdin")
    parser.add_argument("--reannounce", type=float, default=3.0,
                        help="seconds between re-enabling the advertisement while unconnected (0: never; see reannounce)")
    parser.add_argument("--commands", action="store_true", help="read JSON commands from stdin (see command())")
    parser.add_argument("--adapter", default="hci1")
    parser.add_argument("--name", default="Progressor_1719")
    parser.add_argument("--speed", type=float, default=1.0, help="capture time divided by this")
    parser.add_argument("--link-loss", choices=["disconnect", "report"], default="disconnect")
    arguments = parser.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    progressor = Progressor(bus, arguments)
    loop = GLib.MainLoop()
    if arguments.commands:
        def readable(source, condition):
            line = sys.stdin.readline()
            if not line:
                loop.quit()
                return False
            progressor.command(line)
            return True
        GLib.io_add_watch(sys.stdin, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, readable)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, lambda: loop.quit() or False)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, lambda: loop.quit() or False)
    loop.run()
    emit("exit")


if __name__ == "__main__":
    main()
