import {
  AccessBar,
  type ApiClient,
  type ErrorBody,
  ErrorNote,
  KeyPrompt,
  openEventStream,
  type StreamState,
  TokensPanel,
  toErrorBody,
  useAccess,
  useClientState,
} from '@homeops/web-kit';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { controlBlock, deviceScopeChoices } from './device-access.js';
import { DeviceCard } from './device-card.js';
import type { SubDevice } from './hub-panel.js';
import type { Thermostat } from './thermostat-panel.js';
import { applyChannel, applyCover, applyDoor, applyLight, applyThermostat, type ChannelState, replaceDevice } from './device-list.js';
import { StatusBar } from './status-bar.js';
import type { ChannelEvent, Cover, Device, GarageDoor, Health, HealthSummary, Light, SyncResult } from './types.js';
import { WatchesPanel } from './watches-panel.js';

/** The devices page: a card per device, live from GET /events, with the session and budget on top, and the watches below. */
export function App({ client }: { client: ApiClient }) {
  const { keyNeeded, version } = useClientState(client);
  const { access, problem: accessProblem } = useAccess(client, version);
  // Nothing is read before the service says what this key may read; a key without devices:read reads nothing.
  const readLock = access.lacks('devices:read');
  const controlLock = access.lacks('devices:control');
  const adminLock = access.lacks('admin');
  const [tokensOpen, setTokensOpen] = useState(false);
  const [devices, setDevices] = useState<Device[] | null>(null);
  const [health, setHealth] = useState<Health | HealthSummary | null>(null);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const [syncNote, setSyncNote] = useState<string | null>(null);
  const [syncing, setSyncing] = useState(false);
  const [doors, setDoors] = useState<Record<string, GarageDoor[]>>({});
  const setDoorsOf = useCallback((uuid: string, list: GarageDoor[]) => setDoors((all) => ({ ...all, [uuid]: list })), []);
  const [covers, setCovers] = useState<Record<string, Cover[]>>({});
  const setCoversOf = useCallback((uuid: string, list: Cover[]) => setCovers((all) => ({ ...all, [uuid]: list })), []);
  const [lights, setLights] = useState<Record<string, Light[]>>({});
  const setLightsOf = useCallback((uuid: string, list: Light[]) => setLights((all) => ({ ...all, [uuid]: list })), []);
  const [thermostats, setThermostats] = useState<Record<string, Thermostat[]>>({});
  const setThermostatsOf = useCallback((uuid: string, list: Thermostat[]) => setThermostats((all) => ({ ...all, [uuid]: list })), []);
  const [hubs, setHubs] = useState<Record<string, SubDevice[]>>({});
  const setHubOf = useCallback((uuid: string, list: SubDevice[]) => setHubs((all) => ({ ...all, [uuid]: list })), []);
  // Device events that may move a watch (a door, presence), counted.
  const [watchChanges, setWatchChanges] = useState(0);

  // Channel events that arrive while the list is being read go on top of what the read answers: the read and the
  // stream are separate requests, so the answer may predate an event the stream already delivered. An answer to an
  // earlier read that comes after a later one's is dropped.
  const arrivingDuringReads = useRef(new Set<ChannelState[]>());
  const reads = useRef({ started: 0, shown: 0 });
  const loadDevices = useCallback(async () => {
    const arrived: ChannelState[] = [];
    const mine = ++reads.current.started;
    arrivingDuringReads.current.add(arrived);
    try {
      const list = (await client.json<Device[]>('GET', '/devices')).body;
      if (mine < reads.current.shown) return;
      reads.current.shown = mine;
      setDevices(arrived.reduce(applyChannel, list));
      setProblem(null);
    } catch (error) {
      if (!client.keyNeeded) setProblem(toErrorBody(error));
    } finally {
      arrivingDuringReads.current.delete(arrived);
    }
  }, [client]);
  const loadHealth = useCallback(async () => {
    // /health answers 503 with its body while the session waits for a person: that body is still the truth.
    const response = await client.fetch('/health').catch(() => null);
    if (response) setHealth((await response.json().catch(() => null)) as Health | HealthSummary | null);
  }, [client]);
  // A read of one device (after its `device` or `online` event) is layered the same way: a switch press's channel
  // event that arrives while it is read must not be undone by an answer computed before the press.
  const loadDevice = useCallback(
    async (uuid: string) => {
      const arrived: ChannelState[] = [];
      arrivingDuringReads.current.add(arrived);
      try {
        const device = await client.json<Device>('GET', `/devices/${encodeURIComponent(uuid)}`).then(
          (r) => r.body,
          () => null,
        );
        setDevices((list) => (list ? arrived.reduce(applyChannel, replaceDevice(list, uuid, device)) : list));
      } finally {
        arrivingDuringReads.current.delete(arrived);
      }
    },
    [client],
  );

  // A channel state the device told, on the stream or in a switch command's answer: shown, and laid over the reads
  // under way. The answer counts as much as the event: a read answered after the press cannot undo it either.
  const applyChannelState = useCallback((state: ChannelState) => {
    for (const arrived of arrivingDuringReads.current) arrived.push(state);
    setDevices((list) => list && applyChannel(list, state));
  }, []);

  useEffect(() => {
    void loadHealth();
    const timer = setInterval(() => void loadHealth(), 10_000);
    return () => clearInterval(timer);
  }, [version, loadHealth]);

  useEffect(() => {
    if (readLock === null) void loadDevices();
    else if (access.known) setDevices(null);
  }, [version, access, readLock, loadDevices]);

  useEffect(() => {
    if (readLock !== null) return;
    return openEventStream(client, '/events', {
      onState: setStream,
      // Read once the stream is open, the first time too: a change before it opened (a state first read after the
      // page's first list, a drop) is in this list, and every later one comes on the stream.
      onOpen: () => void loadDevices(),
      onEvent: ({ type, data }) => {
        const event = data as Partial<ChannelEvent> & { uuid?: string; device?: { uuid: string } };
        if (type === 'channel') applyChannelState(event as ChannelEvent);
        else if (type === 'hub') {
          const { uuid, subdevices } = data as { uuid: string; subdevices: SubDevice[] };
          setHubOf(uuid, subdevices);
        } else if (type === 'thermostat') {
          const {
            uuid,
            name: _name,
            source: _source,
            type: _type,
            ...told
          } = data as Thermostat & { uuid: string; name: string; source: string; type: string };
          setThermostats((all) => ({ ...all, [uuid]: applyThermostat(all[uuid], told) }));
        } else if (type === 'light') {
          const { uuid, ...light } = data as Light & { uuid: string };
          setLights((all) => ({ ...all, [uuid]: applyLight(all[uuid], light) }));
        } else if (type === 'cover') {
          const { uuid, channel, position, motion } = data as Cover & { uuid: string };
          setCovers((all) => ({ ...all, [uuid]: applyCover(all[uuid], { channel, position, motion }) }));
        } else if (type === 'garageDoor') {
          const { uuid, channel, state } = data as { uuid: string; channel: number; state: GarageDoor['state'] };
          setDoors((all) => ({ ...all, [uuid]: applyDoor(all[uuid], channel, state) }));
          setWatchChanges((n) => n + 1);
        } else if (type === 'online' && event.uuid) {
          void loadDevice(event.uuid);
          setWatchChanges((n) => n + 1);
        } else if (type === 'device' && event.device) void loadDevice(event.device.uuid);
        else if (type === 'device-removed' && event.uuid) setDevices((list) => list && replaceDevice(list, event.uuid!, null));
        else if (type === 'sync') void loadDevices().then(loadHealth);
        else if (type === 'session') void loadHealth();
        else if (type === 'watch') setWatchChanges((n) => n + 1);
      },
    });
  }, [client, version, readLock, loadDevices, loadDevice, loadHealth, setHubOf, applyChannelState]);

  const sync = async () => {
    setSyncing(true);
    try {
      const { body } = await client.json<SyncResult>('POST', '/devices/sync');
      setSyncNote(`Synced: ${body.total} devices (${body.added} new, ${body.removed} removed)`);
      setProblem(null);
      await loadDevices();
    } catch (error) {
      setSyncNote(null);
      setProblem(toErrorBody(error));
    } finally {
      setSyncing(false);
      void loadHealth();
    }
  };

  return (
    <>
      <header class="topbar">
        <h1>Devices</h1>
        <StatusBar client={client} health={health} stream={readLock === null ? stream : null} mayLogIn={access.isAdmin} onChange={loadHealth} />
        <AccessBar client={client} access={access} tokensOpen={tokensOpen} onTokens={setTokensOpen} />
        <button
          type="button"
          class="primary"
          onClick={sync}
          disabled={syncing || keyNeeded || adminLock !== null}
          title={adminLock ?? undefined}
          data-locked={adminLock !== null || undefined}
        >
          {syncing ? 'Syncing…' : 'Sync'}
        </button>
      </header>
      <main>
        {keyNeeded ? <KeyPrompt client={client} /> : null}
        {tokensOpen && access.isAdmin ? <TokensPanel client={client} choices={deviceScopeChoices(devices ?? [])} open={access.me?.kind === 'open'} /> : null}
        <ErrorNote problem={accessProblem} />
        {access.known && readLock ? <p class="lock-note">{readLock}: this page cannot show the devices.</p> : null}
        {access.known && !readLock && controlLock ? <p class="lock-note">Read only: {controlLock}.</p> : null}
        <ErrorNote problem={problem} />
        {syncNote ? (
          <p class="muted" role="status">
            {syncNote}
          </p>
        ) : null}
        {devices?.length === 0 ? <p class="muted">No devices yet. Press Sync to fetch them from the cloud.</p> : null}
        {devices === null && !keyNeeded && !problem && !(access.known && readLock) ? <p class="muted">Loading devices…</p> : null}
        <section class="grid" aria-label="Devices">
          {devices?.map((device) => {
            return (
              <DeviceCard
                key={device.uuid}
                client={client}
                device={device}
                lockOf={(family) => controlBlock(access, device, family)}
                pageLock={controlLock}
                doors={doors[device.uuid]}
                onDoors={setDoorsOf}
                covers={covers[device.uuid]}
                onCovers={setCoversOf}
                lights={lights[device.uuid]}
                onLights={setLightsOf}
                subdevices={hubs[device.uuid]}
                onSubdevices={setHubOf}
                thermostats={thermostats[device.uuid]}
                onThermostats={setThermostatsOf}
                onStale={loadDevice}
                onChannel={applyChannelState}
                onChange={(d) => setDevices((list) => list && replaceDevice(list, d.uuid, d))}
              />
            );
          })}
        </section>
        {devices && readLock === null ? (
          <WatchesPanel client={client} devices={devices} hubs={hubs} onHub={setHubOf} adminLock={adminLock} changes={watchChanges} />
        ) : null}
      </main>
    </>
  );
}
