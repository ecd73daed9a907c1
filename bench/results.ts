import type { DiskProbe } from './disk-probe.js';
import type { LatencyResult, LoadResult } from './load.js';

/** The machine and the moment a run was made on. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  node: string;
  platform: string;
  /** 1-minute load average when the run started and ended: how busy the machine was besides the bench. */
  loadAverageStart: number;
  loadAverageEnd: number;
  /** Append + fdatasync in the temp dir the histories live in, at the start and at the end of the run. */
  durableAppendStart?: DiskProbe;
  durableAppendEnd?: DiskProbe;
}

/** Settings shared by every throughput run. */
export interface RunSettings {
  connections: number;
  seconds: number;
  warmupSeconds: number;
  latencySeconds: number;
}

/** Service runs next to the ceiling runs made just before and after them, in the same invocation. */
export interface Compared {
  /** The (first) service run. */
  service: LoadResult;
  /** Every service run, when there were several rounds. */
  serviceRounds?: LoadResult[];
  ceilingRps: number;
  serviceRps: number;
  /** serviceRps / ceilingRps: what the targets are stated in. */
  ratio: number;
  /** Ceiling CPU per request / service CPU per request: the same comparison, much less moved by other load. */
  cpuRatio?: number;
}

/** One fold of the journal into the YAML snapshot, as the service logged it. */
export interface Fold {
  records: number;
  ms: number;
}

/** Notifications at one history size. */
export interface CreateStage {
  stored: number;
  seedMs: number;
  startupMs: number;
  create: Compared;
  /** Folds the service made from its start to the end of the create runs, and the one it made when stopped. */
  folds?: { whileRunning: Fold[]; onStop: Fold | undefined };
}

/** What issue 14 asks for at 1,000,000 stored notifications (MiB, ms). */
export interface MillionStage {
  startupMs: number;
  /** VmRSS once /health answers, and VmHWM then (the peak while loading). */
  afterStartMb: number;
  startupPeakMb: number;
  /** heapUsed + external after two full garbage collections, once started. */
  liveHeapMb?: number;
  /** VmHWM over the list and create runs only (the count is reset before them); undefined if it could not be reset. */
  peakDuringRunsMb?: number;
  listP50Ms?: number;
  /** SIGTERM to exit, after the create runs; and the exit code. */
  stopMs?: number;
  stopCode?: number | null;
}

/** The worst-case restart (issue 33): what the stop left and took, and the start on it (ms, MB, MiB). */
export interface RestartStage {
  creates: number;
  non2xx: number;
  createSeconds: number;
  /** SIGTERM to exit, and the exit code. */
  stopMs: number;
  stopCode: number | null;
  /** Whether the service logged a fold while stopping. */
  foldedOnStop: boolean;
  /** What the stop left: the YAML snapshot and the journal(s) beside it, in MB (10^6 bytes). */
  leftSnapshotMb: number;
  leftJournalMb: number;
  /** Spawn to /health 200, and to the first page of a recipient after it; CPU the start used; VmRSS and VmHWM then. */
  startupMs: number;
  listedMs: number;
  startCpuMs: number;
  afterStartMb: number;
  startupPeakMb: number;
}

/** Issue 15: the history in PostgreSQL, one instance (and two) on one database. */
export interface PostgresStage {
  stored: number;
  /** Rows written straight in SQL (one INSERT … SELECT per 100,000), then ANALYZE. */
  seedMs: number;
  create: Compared;
  /** Transactions the database committed per create during the run (pg_stat_database.xact_commit delta / requests). */
  transactionsPerCreate?: number;
  /** CPU time of the PostgreSQL server (postmaster and backends) per create, warm-up included (µs). */
  databaseCpuUsPerCreate?: number;
}

export interface PostgresResults {
  stages: PostgresStage[];
  /** First page of a recipient, one request at a time, at 1,000,000 rows. */
  listP50MsAtMillion?: number;
  /** Two instances on the same database at 1,000,000 rows, the load split over both; req/s summed. */
  twoInstances?: { rps: number; oneInstanceRps: number; ratio: number; non2xx: number };
}

/** Toggle latency from device-control's own bench script, when it exists and ran. */
export interface ToggleResult {
  status: 'measured' | 'not measured';
  reason?: string;
  /** Added by the service path over the emulator's own round trip, p50. */
  addedP50Ms?: number;
  /** The emulator's own round trip and the toggle through the service, p50, when the script prints them. */
  roundTripP50Ms?: number | undefined;
  serviceP50Ms?: number | undefined;
  command?: string;
  raw?: unknown;
}

/** Everything one `pnpm bench` run measured. */
export interface BenchResults {
  command: string;
  /** The commit measured, and whether services/ or packages/ had uncommitted changes (a shared checkout). */
  code: { commit: string; uncommittedChanges: boolean } | undefined;
  startedAt: string;
  durationSeconds: number;
  machine: MachineInfo;
  settings: RunSettings;
  ceilings: {
    create: LoadResult[];
    devices: LoadResult[];
    /** One connection, sequential: the floor for the list latency. */
    list?: LatencyResult;
  };
  notifications: {
    stages: CreateStage[];
    listAt100k?: { unloaded: LatencyResult; loaded: LoadResult; bytes: number };
    startupAt100kMs?: number;
    /** MiB from /proc/<pid>/status: VmRSS once started (the target), VmHWM then (peak while loading), and both after the load runs. */
    memoryAt100k?: { afterStartMb: number; startupPeakMb: number; afterLoadMb?: number; peakAfterLoadMb?: number };
    /** Issue 14, at 1,000,000 stored. */
    atMillion?: MillionStage;
    /** Issue 33: a million creates over HTTP into an empty history, SIGTERM, and the start after it. */
    restart?: RestartStage;
  };
  /** Issue 15; absent when the phase did not run. */
  postgres?: PostgresResults;
  deviceControl: {
    devices?: Compared & { deviceCount: number; bytes: number };
    toggle: ToggleResult;
  };
  /** Anything that went wrong: non-2xx answers, connection errors, stages that could not run. */
  problems: string[];
}
