'''griptrack's fake BlueZ: a python3-dbusmock template for org.bluez with GATT.

Run with Debian's Python (python3-dbusmock, python3-dbus, python3-gi):

    /usr/bin/python3 -m dbusmock --system -t Tests/FakeBlueZ/fake_bluez.py -p '{"notifications": "/tmp/n.txt"}'

Why not the stock `bluez5` template: it has no GattService1/GattCharacteristic1, no notifications, no AcquireNotify,
and its Device1.Connect leaves Connected false (docs/bluez.md §6). This template is standalone and models what
docs/bluez.md §6 lists: adapters, discovery with per-client filters and sessions, devices that are exported
when discovered, Connect (Connected=true, then ServicesResolved=true after a delay), GATT objects with BlueZ-style
paths (serviceHHHH/charHHHH/descHHHH, HHHH = ATT handle), per-sender StartNotify sessions, AcquireNotify over a
SOCK_SEQPACKET socketpair, WriteValue by Flags, and fault injection.

Parameters (-p JSON, every key optional):
    notifications   file with one notification per line: `<delay_us> <hexbytes>` (hex may be empty; '#' comments).
                    Also read from the env FAKE_BLUEZ_NOTIFICATIONS. Streamed after a write of 0x65 on the
                    Progressor control point, stopped by 0x66, by a link drop, or at end of file (other kinds of
                    device: their own START byte, or subscribing; see KINDS and AddDevice).
    powered         adapter hci0 Powered (default true)
    progressor      false to leave the Progressor out (default true)
    known           true: the Progressor is exported at start-up (a device bluetoothd remembers), false (default):
                    only once a discovery session finds it
    resolveDelayMs  delay between Connected=true and ServicesResolved=true (default 30)
    decoy           false to leave out the decoy device "Decoy Scale" (default true)
    emitLog         file to append `<time.monotonic_ns()> <index>` to for every streamed notification, taken just
                    before it is sent (latency benchmarks: scripts/bench-daemon); index counts from 0 per START

Control methods are on `/`, interface org.freedesktop.DBus.Mock (see the functions below).

What it cannot model (cover these on a Pi with a real device): ATT/MTU negotiation (MTU is a fixed property),
pairing and agents, real radio timing and signal loss/bursts, advertisement-only data (ManufacturerData/ServiceData
updates, DuplicateData), temporary-device expiry (TemporaryTimeout), the CCCD-write delay that makes AcquireNotify
lose early notifications, ReadValue echoing as a Value signal, AcquireWrite, indication confirmations (an
indicating characteristic delivers through StartNotify like a notifying one),
auto-connect after a link loss without a client Connect (use Reconnect), the 5.83+ Device1.Disconnected signal, and
a dbus-daemon restart (the private bus stays up for the whole test).
'''

import os
import socket
import time

import dbus
import dbus.lowlevel
import dbus.service
from gi.repository import GLib

from dbusmock import MOCK_IFACE, mockobject

BUS_NAME = 'org.bluez'
MAIN_OBJ = '/'
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

ADAPTER_IFACE = 'org.bluez.Adapter1'
DEVICE_IFACE = 'org.bluez.Device1'
SERVICE_IFACE = 'org.bluez.GattService1'
CHAR_IFACE = 'org.bluez.GattCharacteristic1'
DESC_IFACE = 'org.bluez.GattDescriptor1'
PROPS_IFACE = 'org.freedesktop.DBus.Properties'
OM_IFACE = 'org.freedesktop.DBus.ObjectManager'

PROGRESSOR_SERVICE = '7e4e1701-1ea6-40c9-9dcc-13d34ffead57'
PROGRESSOR_DATA = '7e4e1702-1ea6-40c9-9dcc-13d34ffead57'
PROGRESSOR_CONTROL = '7e4e1703-1ea6-40c9-9dcc-13d34ffead57'
CCC_UUID = '00002902-0000-1000-8000-00805f9b34fb'
DECOY_SERVICE = '0000180d-0000-1000-8000-00805f9b34fb'  # Heart Rate: no force device uses it


def _sig(short):
    return '0000%s-0000-1000-8000-00805f9b34fb' % short


# The devices AddDevice knows: GATT services as (uuid, [(char uuid, flags)]), which characteristic streams, and how a
# stream starts: a write of `start` on `control` (stopped by `stop`), or subscribing (`start` None: the device
# streams once notifications or indications are on). Taken from docs/devices.md, not from griptrack's profiles.
KINDS = {
    'progressor': {
        'services': [(PROGRESSOR_SERVICE, [(PROGRESSOR_DATA, ['notify']),
                                           (PROGRESSOR_CONTROL, ['write', 'write-without-response'])])],
        'data': PROGRESSOR_DATA, 'control': PROGRESSOR_CONTROL, 'start': b'\x65', 'stop': b'\x66'},
    'forceboard': {
        'services': [('9a88d67f-8df2-4afe-9e0d-c2bbbe773dd0', [('9a88d682-8df2-4afe-9e0d-c2bbbe773dd0', ['notify']),
                                                               ('9a88d683-8df2-4afe-9e0d-c2bbbe773dd0', ['write'])]),
                     ('467a8516-6e39-11eb-9439-0242ac130002', [('467a8517-6e39-11eb-9439-0242ac130002', ['write'])])],
        'data': '9a88d682-8df2-4afe-9e0d-c2bbbe773dd0', 'control': '467a8517-6e39-11eb-9439-0242ac130002',
        'start': b'\x04', 'stop': b'\x07'},
    'entralpi': {
        'services': [(_sig('fff0'), [(_sig('fff1'), ['notify']), (_sig('fff4'), ['write'])])],
        'data': _sig('fff1'), 'control': None, 'start': None, 'stop': None},
    'weightscale': {
        'services': [(_sig('181d'), [(_sig('2a9d'), ['indicate']), (_sig('2a9e'), ['read'])])],
        'data': _sig('2a9d'), 'control': None, 'start': None, 'stop': None},
    'frez': {
        'services': [('da8a6c41-154b-4b9a-9b00-2f84dfcebfe9', [('da8a6c42-154b-4b9a-9b00-2f84dfcebfe9', ['notify']),
                                                               ('da8a6c43-154b-4b9a-9b00-2f84dfcebfe9', ['write'])])],
        'data': 'da8a6c42-154b-4b9a-9b00-2f84dfcebfe9', 'control': 'da8a6c43-154b-4b9a-9b00-2f84dfcebfe9',
        'start': b'\x01', 'stop': b'\x02'},
    # An HM-10 UART: whole 6-byte commands (05 op 00 00 p cs) start and stop the upload.
    'cts500': {
        'services': [(_sig('ffe0'), [(_sig('ffe1'), ['notify']), (_sig('ffe2'), ['write', 'write-without-response'])])],
        'data': _sig('ffe1'), 'control': _sig('ffe2'),
        'start': b'\x05\xaa\x00\x00\x00\xaf', 'stop': b'\x05\xab\x00\x00\x00\xb0'},
    # A Mito in Tindeq mode (jvasilakes/mito): the Progressor's data point only, streaming once subscribed.
    'mito': {
        'services': [(PROGRESSOR_SERVICE, [(PROGRESSOR_DATA, ['notify'])])],
        'data': PROGRESSOR_DATA, 'control': None, 'start': None, 'stop': None},
    # The Griptonite Motherboard on the Nordic UART: ASCII commands, `S30` streams (the empty stop is not modelled).
    'motherboard': {
        'services': [('6e400001-b5a3-f393-e0a9-e50e24dcca9e',
                      [('6e400003-b5a3-f393-e0a9-e50e24dcca9e', ['notify']),
                       ('6e400002-b5a3-f393-e0a9-e50e24dcca9e', ['write', 'write-without-response'])])],
        'data': '6e400003-b5a3-f393-e0a9-e50e24dcca9e', 'control': '6e400002-b5a3-f393-e0a9-e50e24dcca9e',
        'start': b'S', 'stop': b'\x00never'},
    # Microchip's Transparent UART: streams once subscribed.
    'climbro': {
        'services': [('49535343-fe7d-4ae5-8fa9-9fafd205e455',
                      [('49535343-1e4d-4bd9-ba61-23c647249616', ['notify']),
                       ('49535343-8841-43f4-a8d4-ecbe34729bb3', ['write', 'write-without-response'])])],
        'data': '49535343-1e4d-4bd9-ba61-23c647249616', 'control': None, 'start': None, 'stop': None},
    # No GATT: its notifications file is played as ManufacturerData (company 0x0100) while anyone discovers.
    'whc06': {'services': [], 'data': None, 'control': None, 'start': None, 'stop': None, 'manufacturer': 0x0100},
}


def _err(name, message):
    return dbus.exceptions.DBusException(message, name='org.bluez.Error.' + name)


class Fake:
    '''All fake state; one instance per process (module global FAKE).'''

    def __init__(self, mock, parameters):
        self.mock = mock
        self.bus = mock.connection
        self.resolve_delay_ms = int(parameters.get('resolveDelayMs', 30))
        self.notifications_path = parameters.get('notifications') or os.environ.get('FAKE_BLUEZ_NOTIFICATIONS')
        self.emit_log = open(parameters['emitLog'], 'a', buffering=1, encoding='ascii') \
            if parameters.get('emitLog') else None
        self.adapters = {}        # path -> {'discovery': {sender: filter}, }
        self.devices = {}         # path -> device record (dict)
        self.chars = {}           # path -> characteristic record (dict)
        self.stats = {'notificationsSent': 0, 'notificationsDropped': 0, 'connectCalls': 0, 'disconnectCalls': 0,
                      'startDiscoveryCalls': 0}
        self.bus.add_signal_receiver(self._name_owner_changed, signal_name='NameOwnerChanged',
                                     dbus_interface='org.freedesktop.DBus', bus_name='org.freedesktop.DBus')

    # ---------------------------------------------------------------- signals and properties

    def emit(self, path, interface, member, signature, args):
        message = dbus.lowlevel.SignalMessage(path, interface, member)
        message.append(*args, signature=signature)
        self.bus.send_message(message)

    def set_props(self, path, interface, changes, invalidated=()):
        props = mockobject.objects[path].props[interface]
        for key, value in changes.items():
            props[key] = value
        for key in invalidated:
            props.pop(key, None)
        self.emit(path, PROPS_IFACE, 'PropertiesChanged', 'sa{sv}as',
                  [interface, dbus.Dictionary(changes, signature='sv'), dbus.Array(invalidated, signature='s')])

    def export(self, path, interface, props, methods):
        '''Adds an object with its methods and emits InterfacesAdded.'''
        self.mock.AddObject(path, interface, dbus.Dictionary(props, signature='sv'), [])
        obj = mockobject.objects[path]
        for name, fn in methods.items():
            obj.methods.setdefault(interface, {})[name] = (fn._dbus_in_signature, fn._dbus_out_signature, '', fn)
        self.emit('/', OM_IFACE, 'InterfacesAdded', 'oa{sa{sv}}',
                  [dbus.ObjectPath(path), dbus.Dictionary({interface: obj.props[interface]}, signature='sa{sv}')])

    def unexport(self, path):
        obj = mockobject.objects.get(path)
        if obj is None:
            return
        interfaces = list(obj.props.keys())
        self.mock.RemoveObject(path)
        self.emit('/', OM_IFACE, 'InterfacesRemoved', 'oas', [dbus.ObjectPath(path), dbus.Array(interfaces, signature='s')])

    # ---------------------------------------------------------------- adapters

    def add_adapter(self, name, powered):
        path = '/org/bluez/' + name
        self.adapters[path] = {'discovery': {}, 'filters': {}}
        index = int(name[3:]) if name.startswith('hci') and name[3:].isdigit() else 0
        self.export(path, ADAPTER_IFACE, {
            'Address': dbus.String('00:AA:01:00:00:%02X' % index),
            'AddressType': dbus.String('public'),
            'Name': dbus.String('fake-' + name), 'Alias': dbus.String('fake-' + name),
            'Class': dbus.UInt32(0), 'Powered': dbus.Boolean(powered), 'Discoverable': dbus.Boolean(False),
            'Pairable': dbus.Boolean(True), 'Discovering': dbus.Boolean(False),
            'UUIDs': dbus.Array([], signature='s'), 'Modalias': dbus.String('usb:v1D6Bp0246d0542'),
        }, {'StartDiscovery': AdapterMethods.StartDiscovery, 'StopDiscovery': AdapterMethods.StopDiscovery,
            'SetDiscoveryFilter': AdapterMethods.SetDiscoveryFilter, 'RemoveDevice': AdapterMethods.RemoveDevice,
            'GetDiscoveryFilters': AdapterMethods.GetDiscoveryFilters})
        return path

    def adapter_powered(self, path):
        return bool(mockobject.objects[path].props[ADAPTER_IFACE]['Powered'])

    def merged_uuid_filter(self, adapter):
        '''None = no UUID restriction (some client asked for all devices).'''
        state = self.adapters[adapter]
        uuids = set()
        for sender in state['discovery']:
            wanted = state['filters'].get(sender, {}).get('UUIDs')
            if not wanted:
                return None
            uuids.update(str(u).lower() for u in wanted)
        return uuids

    def discover_tick(self, adapter):
        '''A discovery's first report: every matching device, new ones exported, known ones with a fresh RSSI.'''
        state = self.adapters.get(adapter)
        if state is None or not state['discovery']:
            return False
        uuids = self.merged_uuid_filter(adapter)
        for path, device in self.devices.items():
            if device['adapter'] != adapter:
                continue
            if uuids is not None and not uuids.intersection(u.lower() for u in device['uuids']):
                continue
            if not device['exported']:
                self.export_device(path)
            else:
                self.set_props(path, DEVICE_IFACE, {'RSSI': dbus.Int16(device['rssi'])})
        if not state.get('watching_arrivals'):
            state['watching_arrivals'] = True
            GLib.timeout_add(250, self.arrival_tick, adapter)
        return False

    def arrival_tick(self, adapter):
        '''While discovering, a device that starts advertising (added after the scan began) is reported, as
        bluetoothd does when its first advertisement is heard; the scan is not restarted for it.'''
        state = self.adapters.get(adapter)
        if state is None or not state['discovery']:
            if state is not None:
                state['watching_arrivals'] = False
            return False
        uuids = self.merged_uuid_filter(adapter)
        for path, device in self.devices.items():
            if device['adapter'] != adapter or device['exported']:
                continue
            if uuids is not None and not uuids.intersection(u.lower() for u in device['uuids']):
                continue
            self.export_device(path)
        return True

    # ---------------------------------------------------------------- devices and GATT

    def add_device(self, adapter, address, name, uuids, rssi, known):
        path = adapter + '/dev_' + address.upper().replace(':', '_')
        self.devices[path] = {
            'adapter': adapter, 'address': address.upper(), 'name': name, 'uuids': list(uuids), 'rssi': rssi,
            'exported': False, 'services': [], 'gatt_exported': False, 'connect_errors': [], 'connecting': False,
            'connected': False, 'resolved': False, 'stream': None, 'handle_shift': 0, 'connected_by': None,
            'kind': None,
        }
        if known:
            self.export_device(path)
        return path

    def export_device(self, path):
        device = self.devices[path]
        device['exported'] = True
        props = {
            'Address': dbus.String(device['address']), 'AddressType': dbus.String('random'),
            'Name': dbus.String(device['name']), 'Alias': dbus.String(device['name']),
            'Paired': dbus.Boolean(False), 'Bonded': dbus.Boolean(False), 'Trusted': dbus.Boolean(False),
            'Blocked': dbus.Boolean(False), 'LegacyPairing': dbus.Boolean(False),
            'Connected': dbus.Boolean(device['connected']), 'ServicesResolved': dbus.Boolean(device['resolved']),
            'UUIDs': dbus.Array(device['uuids'], signature='s'), 'Adapter': dbus.ObjectPath(device['adapter']),
            'ManufacturerData': dbus.Dictionary({}, signature='qv'), 'ServiceData': dbus.Dictionary({}, signature='sv'),
            'AdvertisingFlags': dbus.Array([dbus.Byte(6)], signature='y'),
        }
        if self.adapters[device['adapter']]['discovery']:
            props['RSSI'] = dbus.Int16(device['rssi'])
        self.export(path, DEVICE_IFACE, props, {
            'Connect': DeviceMethods.Connect, 'Disconnect': DeviceMethods.Disconnect, 'Pair': DeviceMethods.Pair})

    def add_service(self, device_path, uuid, primary, handle=None):
        device = self.devices[device_path]
        if handle is None:
            handle = 0x10 * (len(device['services']) + 1)
        service = {'uuid': uuid, 'primary': primary, 'handle': handle, 'chars': []}
        device['services'].append(service)
        return device_path + '/service%04x' % handle

    def add_char(self, service_path, uuid, flags, mtu):
        device_path = service_path.rsplit('/', 1)[0]
        service = self._service(device_path, service_path)
        handle = service['handle'] + 1 + 3 * len(service['chars'])
        char = {'uuid': uuid, 'flags': list(flags), 'mtu': mtu, 'handle': handle, 'descs': []}
        if 'notify' in flags or 'indicate' in flags:
            char['descs'].append(CCC_UUID)
        service['chars'].append(char)
        return service_path + '/char%04x' % handle

    def _service(self, device_path, service_path):
        device = self.devices[device_path]
        for service in device['services']:
            if device_path + '/service%04x' % (service['handle'] + device['handle_shift']) == service_path:
                return service
        raise dbus.exceptions.DBusException('no such service ' + service_path, name='org.freedesktop.DBus.Mock.NameError')

    def export_gatt(self, device_path):
        device = self.devices[device_path]
        if device['gatt_exported']:
            return
        device['gatt_exported'] = True
        shift = device['handle_shift']
        for service in device['services']:
            service_path = device_path + '/service%04x' % (service['handle'] + shift)
            self.export(service_path, SERVICE_IFACE, {
                'UUID': dbus.String(service['uuid']), 'Primary': dbus.Boolean(service['primary']),
                'Device': dbus.ObjectPath(device_path), 'Includes': dbus.Array([], signature='o'),
                'Handle': dbus.UInt16(service['handle'] + shift)}, {})
            for char in service['chars']:
                char_path = service_path + '/char%04x' % (char['handle'] + shift)
                props = {
                    'UUID': dbus.String(char['uuid']), 'Service': dbus.ObjectPath(service_path),
                    'Value': dbus.Array([], signature='y'), 'Notifying': dbus.Boolean(False),
                    'Flags': dbus.Array(char['flags'], signature='s'), 'Handle': dbus.UInt16(char['handle'] + shift),
                    'MTU': dbus.UInt16(char['mtu'])}
                if 'notify' in char['flags']:
                    props['NotifyAcquired'] = dbus.Boolean(False)
                if 'write-without-response' in char['flags']:
                    props['WriteAcquired'] = dbus.Boolean(False)
                self.chars[char_path] = {'uuid': char['uuid'], 'flags': char['flags'], 'mtu': char['mtu'],
                                         'device': device_path, 'sessions': set(), 'acquired': None,
                                         'watch': 0, 'writes': []}
                self.export(char_path, CHAR_IFACE, props, {
                    'ReadValue': CharMethods.ReadValue, 'WriteValue': CharMethods.WriteValue,
                    'StartNotify': CharMethods.StartNotify, 'StopNotify': CharMethods.StopNotify,
                    'AcquireNotify': CharMethods.AcquireNotify})
                for index, desc_uuid in enumerate(char['descs']):
                    desc_path = char_path + '/desc%04x' % (char['handle'] + shift + 2 + index)
                    self.export(desc_path, DESC_IFACE, {
                        'UUID': dbus.String(desc_uuid), 'Characteristic': dbus.ObjectPath(char_path),
                        'Value': dbus.Array([], signature='y'),
                        'Handle': dbus.UInt16(char['handle'] + shift + 2 + index)}, {})

    def unexport_gatt(self, device_path):
        device = self.devices[device_path]
        if not device['gatt_exported']:
            return
        device['gatt_exported'] = False
        for path in sorted((p for p in list(mockobject.objects.keys()) if p.startswith(device_path + '/')),
                           key=len, reverse=True):
            char = self.chars.pop(path, None)
            if char is not None:
                self.release_acquired(path, char)
            self.unexport(path)

    def device_chars(self, device_path):
        return [(path, char) for path, char in self.chars.items() if char['device'] == device_path]

    # ---------------------------------------------------------------- connections

    def finish_connect(self, path):
        device = self.devices.get(path)
        if device is None or not device['exported']:
            return False
        device['connecting'] = False
        if not device['connected']:
            device['connected'] = True
            if device.get('silent_connects', 0) > 0:
                # bluetoothd when its ATT connect callback runs before the management event: Connected is true for
                # Get and GetManagedObjects, but no PropertiesChanged says so (docs/bluez.md, pitfall 14).
                device['silent_connects'] -= 1
                mockobject.objects[path].props[DEVICE_IFACE]['Connected'] = dbus.Boolean(True)
            else:
                self.set_props(path, DEVICE_IFACE, {'Connected': dbus.Boolean(True)})
        GLib.timeout_add(self.resolve_delay_ms, self.resolve_services, path)
        return False

    def resolve_services(self, path):
        device = self.devices.get(path)
        if device is None or not device['connected'] or device['resolved']:
            return False
        self.export_gatt(path)
        # Sessions survive link loss: re-arm them (btd_gatt_client_connected) before announcing the services.
        for char_path, char in self.device_chars(path):
            if char['sessions']:
                self.set_props(char_path, CHAR_IFACE, {'Notifying': dbus.Boolean(True)})
        device['resolved'] = True
        self.set_props(path, DEVICE_IFACE, {'ServicesResolved': dbus.Boolean(True)})
        return False

    def drop_link(self, path, remove_services, signal_delay_ms=0):
        '''bluetoothd's order on supervision timeout: close acquired sockets, ServicesResolved=false, Connected=false.
        With `signal_delay_ms` the property signals follow the socket close that much later (as a busy bluetoothd).'''
        self.stop_stream(path)
        for char_path, char in self.device_chars(path):
            self.release_acquired(char_path, char)
        if signal_delay_ms > 0:
            GLib.timeout_add(signal_delay_ms, self.signal_link_down, path, remove_services)
        else:
            self.signal_link_down(path, remove_services)

    def signal_link_down(self, path, remove_services):
        device = self.devices[path]
        if device['resolved']:
            device['resolved'] = False
            self.set_props(path, DEVICE_IFACE, {'ServicesResolved': dbus.Boolean(False)})
        if device['connected']:
            device['connected'] = False
            self.set_props(path, DEVICE_IFACE, {'Connected': dbus.Boolean(False)})
        if remove_services:
            self.unexport_gatt(path)
        return False

    # ---------------------------------------------------------------- notifications

    def release_acquired(self, char_path, char):
        sock = char['acquired']
        if sock is None:
            return
        char['acquired'] = None
        if char['watch']:
            GLib.source_remove(char['watch'])
            char['watch'] = 0
        sock.close()
        if char_path in mockobject.objects:
            changes = {'NotifyAcquired': dbus.Boolean(False)}
            if not char['sessions']:
                changes['Notifying'] = dbus.Boolean(False)
            self.set_props(char_path, CHAR_IFACE, changes)

    def notify(self, char_path, data):
        '''Routes one notification like bluetoothd: acquired fd, else Value signal, else dropped.'''
        char = self.chars.get(char_path)
        if char is None or not self.devices[char['device']]['connected']:
            self.stats['notificationsDropped'] += 1
            return 'dropped'
        if char['acquired'] is not None:
            try:
                char['acquired'].send(bytes(data))
            except OSError:
                self.stats['notificationsDropped'] += 1
                return 'dropped'
            self.stats['notificationsSent'] += 1
            return 'fd'
        if char['sessions']:
            value = dbus.Array([dbus.Byte(b) for b in data], signature='y')
            mockobject.objects[char_path].props[CHAR_IFACE]['Value'] = value
            self.emit(char_path, PROPS_IFACE, 'PropertiesChanged', 'sa{sv}as',
                      [CHAR_IFACE, dbus.Dictionary({'Value': value}, signature='sv'), dbus.Array([], signature='s')])
            self.stats['notificationsSent'] += 1
            return 'signal'
        self.stats['notificationsDropped'] += 1
        return 'dropped'

    def load_notifications(self):
        if not self.notifications_path:
            return []
        entries = []
        with open(self.notifications_path, encoding='ascii') as handle:
            for line in handle:
                line = line.split('#', 1)[0].strip()
                if not line:
                    continue
                parts = line.split(None, 1)
                entries.append((int(parts[0]), bytes.fromhex(parts[1]) if len(parts) > 1 else b''))
        return entries

    def data_uuid(self, device_path):
        return KINDS[self.devices[device_path]['kind'] or 'progressor']['data']

    def advertises(self, device_path):
        return 'manufacturer' in KINDS[self.devices[device_path]['kind'] or 'progressor']

    def start_stream(self, device_path):
        self.stop_stream(device_path)
        data_uuid = self.data_uuid(device_path)
        data_path = next((p for p, c in self.device_chars(device_path) if c['uuid'] == data_uuid), None)
        if data_path is None and not self.advertises(device_path):
            return
        stream = {'entries': self.load_notifications(), 'index': 0, 'char': data_path, 'source': 0,
                  'deadline': GLib.get_monotonic_time()}
        self.devices[device_path]['stream'] = stream
        self._schedule_next(device_path, stream)

    def _schedule_next(self, device_path, stream):
        if stream['index'] >= len(stream['entries']):
            self.devices[device_path]['stream'] = None
            return
        stream['deadline'] += stream['entries'][stream['index']][0]
        delay_ms = max(0, (stream['deadline'] - GLib.get_monotonic_time() + 999) // 1000)
        stream['source'] = GLib.timeout_add(delay_ms, self._stream_tick, device_path, stream)

    def _stream_tick(self, device_path, stream):
        if self.devices[device_path]['stream'] is not stream:
            return False
        # Re-resolve the data characteristic by UUID: its path changes when services come back with new handles.
        if self.emit_log is not None:
            self.emit_log.write('%d %d\n' % (time.monotonic_ns(), stream['index']))
        if self.advertises(device_path):
            self.advertise(device_path, stream['entries'][stream['index']][1])
        else:
            data_uuid = self.data_uuid(device_path)
            data_path = next((p for p, c in self.device_chars(device_path) if c['uuid'] == data_uuid), None)
            self.notify(data_path, stream['entries'][stream['index']][1])
        stream['index'] += 1
        self._schedule_next(device_path, stream)
        return False

    def advertise(self, device_path, data):
        '''One advertisement carrying `data` as manufacturer data, reported like bluetoothd: only while discovering;
        the first one exports the device; a repeat of the same data only when some client set DuplicateData.'''
        device = self.devices[device_path]
        state = self.adapters[device['adapter']]
        if not state['discovery']:
            self.stats['notificationsDropped'] += 1
            return
        value = dbus.Dictionary({dbus.UInt16(KINDS[device['kind']]['manufacturer']):
                                 dbus.Array([dbus.Byte(b) for b in data], signature='y')}, signature='qv')
        if not device['exported']:
            self.export_device(device_path)
            self.set_props(device_path, DEVICE_IFACE, {'ManufacturerData': value})
        else:
            duplicates = any(bool(state['filters'].get(sender, {}).get('DuplicateData', False))
                             for sender in state['discovery'])
            if device.get('advertised') == bytes(data) and not duplicates:
                self.stats['notificationsDropped'] += 1
                return
            self.set_props(device_path, DEVICE_IFACE, {'ManufacturerData': value, 'RSSI': dbus.Int16(device['rssi'])})
        device['advertised'] = bytes(data)
        self.stats['notificationsSent'] += 1

    def subscribed(self, char):
        '''A device that takes no START streams as soon as its data characteristic is subscribed to.'''
        kind = self.devices[char['device']]['kind']
        if kind is not None and KINDS[kind]['start'] is None and char['uuid'] == KINDS[kind]['data']:
            self.start_stream(char['device'])

    def stop_stream(self, device_path):
        stream = self.devices[device_path]['stream']
        if stream is not None:
            if stream['source']:
                GLib.source_remove(stream['source'])
            self.devices[device_path]['stream'] = None

    def _name_owner_changed(self, name, old_owner, new_owner):
        if not name.startswith(':') or new_owner:
            return
        for adapter, state in self.adapters.items():
            if state['discovery'].pop(name, None) is not None and not state['discovery']:
                self.stop_discovering(adapter)
            state['filters'].pop(name, None)
        for char_path, char in list(self.chars.items()):
            if name in char['sessions']:
                char['sessions'].discard(name)
                if not char['sessions'] and char['acquired'] is None:
                    self.set_props(char_path, CHAR_IFACE, {'Notifying': dbus.Boolean(False)})

    def stop_discovering(self, adapter):
        self.set_props(adapter, ADAPTER_IFACE, {'Discovering': dbus.Boolean(False)})
        for path, device in self.devices.items():
            if device['adapter'] == adapter and device['exported'] and \
                    'RSSI' in mockobject.objects[path].props[DEVICE_IFACE]:
                self.set_props(path, DEVICE_IFACE, {}, invalidated=['RSSI'])


FAKE = None


# -------------------------------------------------------------------- org.bluez interfaces (per-object methods)
# Defined inside classes so that AddTemplate does not also install them on `/`.

class AdapterMethods:
    @dbus.service.method(ADAPTER_IFACE, in_signature='', out_signature='', sender_keyword='sender')
    def StartDiscovery(self, sender=None):
        if not FAKE.adapter_powered(self.path):
            raise _err('NotReady', 'Resource Not Ready')
        state = FAKE.adapters[self.path]
        if sender in state['discovery']:
            raise _err('InProgress', 'Operation already in progress')
        was_discovering = bool(state['discovery'])
        state['discovery'][sender] = True
        FAKE.stats['startDiscoveryCalls'] += 1
        if not was_discovering:
            FAKE.set_props(self.path, ADAPTER_IFACE, {'Discovering': dbus.Boolean(True)})
            # An advertising device's data plays from the start of a discovery.
            for path, device in FAKE.devices.items():
                if device['adapter'] == self.path and FAKE.advertises(path) and device['stream'] is None:
                    FAKE.start_stream(path)
        GLib.timeout_add(50, FAKE.discover_tick, self.path)

    @dbus.service.method(ADAPTER_IFACE, in_signature='', out_signature='', sender_keyword='sender')
    def StopDiscovery(self, sender=None):
        state = FAKE.adapters[self.path]
        if not FAKE.adapter_powered(self.path):
            raise _err('NotReady', 'Resource Not Ready')
        if state['discovery'].pop(sender, None) is None:
            raise _err('NotAuthorized', 'Operation Not Authorized')
        if not state['discovery']:
            FAKE.stop_discovering(self.path)

    @dbus.service.method(ADAPTER_IFACE, in_signature='a{sv}', out_signature='', sender_keyword='sender')
    def SetDiscoveryFilter(self, properties, sender=None):
        allowed = {'UUIDs', 'RSSI', 'Pathloss', 'Transport', 'DuplicateData', 'Discoverable', 'Pattern'}
        unknown = set(properties.keys()) - allowed
        if unknown:
            raise _err('InvalidArguments', 'Invalid arguments in method call')
        if 'Transport' in properties and properties['Transport'] not in ('auto', 'bredr', 'le'):
            raise _err('InvalidArguments', 'Invalid arguments in method call')
        FAKE.adapters[self.path]['filters'][sender] = dict(properties)

    @dbus.service.method(ADAPTER_IFACE, in_signature='o', out_signature='')
    def RemoveDevice(self, device):
        device_record = FAKE.devices.get(str(device))
        if device_record is None or not device_record['exported']:
            raise _err('DoesNotExist', 'Does Not Exist')
        FAKE.drop_link(str(device), True)
        device_record['exported'] = False
        FAKE.unexport(str(device))

    @dbus.service.method(ADAPTER_IFACE, in_signature='', out_signature='as')
    def GetDiscoveryFilters(self):
        return dbus.Array(['UUIDs', 'RSSI', 'Pathloss', 'Transport', 'DuplicateData', 'Discoverable', 'Pattern'],
                          signature='s')


class DeviceMethods:
    @dbus.service.method(DEVICE_IFACE, in_signature='', out_signature='', sender_keyword='sender',
                         async_callbacks=('reply', 'error'))
    def Connect(self, sender=None, reply=None, error=None):
        FAKE.stats['connectCalls'] += 1
        device = FAKE.devices[self.path]
        if not FAKE.adapter_powered(device['adapter']):
            error(_err('NotReady', 'Resource Not Ready'))
            return
        if device['connected']:
            reply()  # LE: Connect on a connected device succeeds
            return
        if device['connecting']:
            error(_err('InProgress', 'In Progress'))
            return
        if device['connect_errors']:
            name, message = device['connect_errors'].pop(0)
            error(dbus.exceptions.DBusException(message, name=name))
            return
        device['connecting'] = True
        device['connected_by'] = sender

        def done():
            FAKE.finish_connect(self.path)
            reply()
            return False
        GLib.timeout_add(10, done)

    @dbus.service.method(DEVICE_IFACE, in_signature='', out_signature='')
    def Disconnect(self):
        FAKE.stats['disconnectCalls'] += 1
        FAKE.drop_link(self.path, False)

    @dbus.service.method(DEVICE_IFACE, in_signature='', out_signature='')
    def Pair(self):
        raise _err('AuthenticationFailed', 'Authentication Failed')


class CharMethods:
    @dbus.service.method(CHAR_IFACE, in_signature='a{sv}', out_signature='ay')
    def ReadValue(self, options):
        char = FAKE.chars[self.path]
        if not FAKE.devices[char['device']]['connected']:
            raise _err('Failed', 'Not connected')
        if 'read' not in char['flags']:
            raise _err('NotPermitted', 'Read not permitted')
        return mockobject.objects[self.path].props[CHAR_IFACE]['Value']

    @dbus.service.method(CHAR_IFACE, in_signature='aya{sv}', out_signature='', byte_arrays=True)
    def WriteValue(self, value, options):
        char = FAKE.chars[self.path]
        if not FAKE.devices[char['device']]['connected']:
            raise _err('Failed', 'Not connected')
        unknown = set(options.keys()) - {'offset', 'type', 'mtu', 'device', 'link', 'prepare-authorize'}
        if unknown:
            raise _err('InvalidArguments', 'Invalid arguments in method call')
        kind = str(options.get('type', 'request'))
        needed = {'request': 'write', 'command': 'write-without-response', 'reliable': 'reliable-write'}.get(kind)
        if needed is None:
            raise _err('InvalidArguments', 'Invalid arguments in method call')
        if needed not in char['flags']:
            raise _err('NotPermitted', 'Write not permitted')
        char['writes'].append((bytes(value), kind))
        device_kind = KINDS[FAKE.devices[char['device']]['kind'] or 'progressor']
        if char['uuid'] == device_kind['control'] and len(value) >= 1:
            # A one-byte START also comes as [op, 0x00] (the TLV form); a longer one must arrive whole.
            if bytes(value).startswith(device_kind['start']):
                FAKE.start_stream(char['device'])
            elif bytes(value).startswith(device_kind['stop']):
                FAKE.stop_stream(char['device'])

    @dbus.service.method(CHAR_IFACE, in_signature='', out_signature='', sender_keyword='sender')
    def StartNotify(self, sender=None):
        char = FAKE.chars[self.path]
        if 'notify' not in char['flags'] and 'indicate' not in char['flags']:
            raise _err('NotSupported', 'Operation is not supported')
        if char['acquired'] is not None:
            raise _err('NotPermitted', 'Notify acquired')
        if sender in char['sessions']:
            return
        first = not char['sessions']
        char['sessions'].add(sender)
        if first and FAKE.devices[char['device']]['connected']:
            FAKE.set_props(self.path, CHAR_IFACE, {'Notifying': dbus.Boolean(True)})
            FAKE.subscribed(char)

    @dbus.service.method(CHAR_IFACE, in_signature='', out_signature='', sender_keyword='sender')
    def StopNotify(self, sender=None):
        char = FAKE.chars[self.path]
        if sender not in char['sessions']:
            raise _err('Failed', 'No notify session started')
        if not FAKE.devices[char['device']]['connected']:
            raise _err('Failed', 'Not connected')
        char['sessions'].discard(sender)
        if not char['sessions']:
            FAKE.set_props(self.path, CHAR_IFACE, {'Notifying': dbus.Boolean(False)})

    @dbus.service.method(CHAR_IFACE, in_signature='a{sv}', out_signature='hq')
    def AcquireNotify(self, options):
        char = FAKE.chars[self.path]
        if 'notify' not in char['flags']:
            raise _err('NotSupported', 'Operation is not supported')
        if not FAKE.devices[char['device']]['connected']:
            raise _err('Failed', 'Not connected')
        if char['acquired'] is not None:
            raise _err('NotPermitted', 'Notify acquired')
        if char['sessions']:
            raise _err('InProgress', 'In Progress')
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        fd = dbus.types.UnixFd(theirs.fileno())  # dbus-python dups it
        theirs.close()
        char['acquired'] = ours
        path = self.path

        def hangup(_fd, _condition):
            current = FAKE.chars.get(path)
            if current is not None and current['acquired'] is ours:
                current['watch'] = 0
                FAKE.release_acquired(path, current)
            return False
        char['watch'] = GLib.io_add_watch(ours.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_HUP | GLib.IO_ERR, hangup)
        FAKE.set_props(self.path, CHAR_IFACE, {'NotifyAcquired': dbus.Boolean(True), 'Notifying': dbus.Boolean(True)})
        FAKE.subscribed(char)
        return (fd, dbus.UInt16(char['mtu']))


# -------------------------------------------------------------------- template entry points


def load(mock, parameters):
    global FAKE  # pylint: disable=global-statement
    FAKE = Fake(mock, parameters)
    adapter = FAKE.add_adapter('hci0', bool(parameters.get('powered', True)))
    if parameters.get('progressor', True):
        add_progressor(adapter, 'F0:0D:CA:FE:12:34', 'Progressor_1234', bool(parameters.get('known', False)))
    if parameters.get('decoy', True):
        FAKE.add_device(adapter, 'C0:FF:EE:00:00:01', 'Decoy Scale', [DECOY_SERVICE], -70, False)


def add_progressor(adapter, address, name, known):
    path = FAKE.add_device(adapter, address, name, [PROGRESSOR_SERVICE], -55, known)
    service = FAKE.add_service(path, PROGRESSOR_SERVICE, True, 0x000b)
    FAKE.add_char(service, PROGRESSOR_DATA, ['notify'], 247)
    FAKE.add_char(service, PROGRESSOR_CONTROL, ['write', 'write-without-response'], 247)
    return path


def add_kind(adapter, address, name, kind, known):
    spec = KINDS[kind]
    path = FAKE.add_device(adapter, address, name, [spec['services'][0][0]] if spec['services'] else [], -60, known)
    FAKE.devices[path]['kind'] = kind
    for index, (service_uuid, chars) in enumerate(spec['services']):
        service = FAKE.add_service(path, service_uuid, True, 0x000b + 0x10 * index)
        for char_uuid, flags in chars:
            FAKE.add_char(service, char_uuid, flags, 247)
    if 'manufacturer' in spec and FAKE.adapters[adapter]['discovery']:
        FAKE.start_stream(path)
    return path


def _device(path):
    device = FAKE.devices.get(str(path))
    if device is None:
        raise dbus.exceptions.DBusException('no such device ' + str(path), name='org.freedesktop.DBus.Mock.NameError')
    return device


def _char(path):
    char = FAKE.chars.get(str(path))
    if char is None:
        raise dbus.exceptions.DBusException('no such characteristic ' + str(path),
                                            name='org.freedesktop.DBus.Mock.NameError')
    return char


@dbus.service.method(MOCK_IFACE, in_signature='sb', out_signature='o')
def AddAdapter(self, name, powered):
    '''Adds adapter /org/bluez/<name>.'''
    return dbus.ObjectPath(FAKE.add_adapter(str(name), bool(powered)))


@dbus.service.method(MOCK_IFACE, in_signature='ob', out_signature='')
def SetAdapterPowered(self, adapter, powered):
    '''Turns an adapter on or off (off drops every link on it).'''
    if not powered:
        for path, device in FAKE.devices.items():
            if device['adapter'] == str(adapter) and device['exported']:
                FAKE.drop_link(path, False)
    FAKE.set_props(str(adapter), ADAPTER_IFACE, {'Powered': dbus.Boolean(powered)})


@dbus.service.method(MOCK_IFACE, in_signature='ossasnb', out_signature='o')
def AddPeripheral(self, adapter, address, name, uuids, rssi, known):
    '''Adds an advertising device without GATT; known=true exports it at once, else discovery finds it.'''
    return dbus.ObjectPath(FAKE.add_device(str(adapter), str(address), str(name), [str(u) for u in uuids],
                                           int(rssi), bool(known)))


@dbus.service.method(MOCK_IFACE, in_signature='ossb', out_signature='o')
def AddProgressor(self, adapter, address, name, known):
    '''Adds a Tindeq Progressor (service 7e4e1701, data 7e4e1702 notify, control 7e4e1703 write).'''
    return dbus.ObjectPath(add_progressor(str(adapter), str(address), str(name), bool(known)))


@dbus.service.method(MOCK_IFACE, in_signature='osssb', out_signature='o')
def AddDevice(self, adapter, address, name, kind, known):
    '''Adds a device of a kind in KINDS (progressor, forceboard, entralpi, weightscale, frez, cts500, climbro, mito, motherboard, whc06) with its GATT layout;
    it streams the notifications file after its START write, once subscribed when it takes no commands, or as
    advertisements while anyone discovers (whc06).'''
    if str(kind) not in KINDS:
        raise dbus.exceptions.DBusException('unknown kind ' + str(kind), name='org.freedesktop.DBus.Mock.NameError')
    return dbus.ObjectPath(add_kind(str(adapter), str(address), str(name), str(kind), bool(known)))


@dbus.service.method(MOCK_IFACE, in_signature='osb', out_signature='o')
def AddGattService(self, device, uuid, primary):
    '''Adds a service to a device (exported at the next connection); returns its path.'''
    return dbus.ObjectPath(FAKE.add_service(str(device), str(uuid), bool(primary)))


@dbus.service.method(MOCK_IFACE, in_signature='osasq', out_signature='o')
def AddGattCharacteristic(self, service, uuid, flags, mtu):
    '''Adds a characteristic (plus a CCC descriptor when it notifies); returns its path.'''
    return dbus.ObjectPath(FAKE.add_char(str(service), str(uuid), [str(f) for f in flags], int(mtu)))


@dbus.service.method(MOCK_IFACE, in_signature='ossu', out_signature='')
def SetConnectError(self, device, name, message, count):
    '''The next `count` Connect calls on `device` fail with D-Bus error `name` and `message`.'''
    _device(device)['connect_errors'] = [(str(name), str(message))] * int(count)


@dbus.service.method(MOCK_IFACE, in_signature='ou', out_signature='')
def SetSilentConnects(self, device, count):
    '''The next `count` Connect calls on `device` connect it without signalling Connected=true (Get still says
    true; ServicesResolved=true is signalled), as bluetoothd 5.66 does when its ATT connection completes before it
    handles the management event.'''
    _device(device)['silent_connects'] = int(count)


@dbus.service.method(MOCK_IFACE, in_signature='ob', out_signature='')
def DropLink(self, device, remove_services):
    '''Link loss: acquired fds closed, ServicesResolved=false, Connected=false; optionally GATT objects removed.'''
    _device(device)
    FAKE.drop_link(str(device), bool(remove_services))


@dbus.service.method(MOCK_IFACE, in_signature='obu', out_signature='')
def DropLinkSocketFirst(self, device, remove_services, delay_ms):
    '''Link loss as a busy bluetoothd reports it: acquired fds closed now, ServicesResolved=false and
    Connected=false `delay_ms` later.'''
    _device(device)
    FAKE.drop_link(str(device), bool(remove_services), int(delay_ms))


@dbus.service.method(MOCK_IFACE, in_signature='o', out_signature='')
def Reconnect(self, device):
    '''bluetoothd's auto-connect: Connected=true then ServicesResolved=true, without any Connect call.'''
    _device(device)
    FAKE.finish_connect(str(device))


@dbus.service.method(MOCK_IFACE, in_signature='o', out_signature='')
def RemoveServices(self, device):
    '''The device's GATT services vanish (Service Changed): ServicesResolved=false, then InterfacesRemoved.'''
    path = str(device)
    record = _device(path)
    FAKE.stop_stream(path)
    if record['resolved']:
        record['resolved'] = False
        FAKE.set_props(path, DEVICE_IFACE, {'ServicesResolved': dbus.Boolean(False)})
    FAKE.unexport_gatt(path)


@dbus.service.method(MOCK_IFACE, in_signature='oq', out_signature='')
def RestoreServices(self, device, handle_shift):
    '''The services come back with every ATT handle moved by `handle_shift` (so new paths), then
    ServicesResolved=true. Notify sessions are kept (bluetoothd re-arms them).'''
    path = str(device)
    record = _device(path)
    old_sessions = {c['uuid']: c['sessions'] for _, c in FAKE.device_chars(path)}
    FAKE.unexport_gatt(path)
    record['handle_shift'] = int(handle_shift)
    FAKE.export_gatt(path)
    for _, char in FAKE.device_chars(path):
        char['sessions'] = set(old_sessions.get(char['uuid'], set()))
    if record['connected']:
        FAKE.resolve_services(path)


@dbus.service.method(MOCK_IFACE, in_signature='oay', out_signature='s', byte_arrays=True)
def EmitNotification(self, char, value):
    '''Sends one notification; returns the route taken: "fd", "signal" or "dropped".'''
    _char(char)
    return FAKE.notify(str(char), bytes(value))


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def SetNotificationFile(self, path):
    '''Replaces the file streamed after a 0x65 write.'''
    FAKE.notifications_path = str(path)


@dbus.service.method(MOCK_IFACE, in_signature='o', out_signature='a(ays)')
def GetWrites(self, char):
    '''Every accepted WriteValue on `char`: (bytes, type).'''
    return dbus.Array([dbus.Struct((dbus.ByteArray(v), dbus.String(t))) for v, t in _char(char)['writes']],
                      signature='(ays)')


@dbus.service.method(MOCK_IFACE, in_signature='o', out_signature='as')
def GetNotifySessions(self, char):
    '''Unique bus names holding a StartNotify session on `char`.'''
    return dbus.Array(sorted(_char(char)['sessions']), signature='s')


@dbus.service.method(MOCK_IFACE, in_signature='o', out_signature='b')
def IsNotifyAcquired(self, char):
    '''Whether a client holds the AcquireNotify socket of `char`.'''
    return dbus.Boolean(_char(char)['acquired'] is not None)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='a{st}')
def GetStats(self):
    '''Counters: notificationsSent, notificationsDropped, connectCalls, disconnectCalls, startDiscoveryCalls.'''
    return dbus.Dictionary({k: dbus.UInt64(v) for k, v in FAKE.stats.items()}, signature='st')


@dbus.service.method(MOCK_IFACE, in_signature='av', out_signature='av')
def Echo(self, values):
    '''Returns its arguments unchanged (marshalling tests).'''
    return values


@dbus.service.method(MOCK_IFACE, in_signature='h', out_signature='h')
def EchoFd(self, fd):
    '''Returns a duplicate of the fd it was given (marshalling tests).'''
    number = fd.take()
    duplicate = dbus.types.UnixFd(number)
    os.close(number)
    return duplicate
