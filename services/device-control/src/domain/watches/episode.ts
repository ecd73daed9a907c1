/**
 * Where one watch stands. `armed`: a watch that needs arming (power below, after having been above) fires only once
 * armed; the others are always armed.
 */
export type EpisodeState =
  | { kind: 'quiet'; armed: boolean }
  | { kind: 'holding'; since: number; armed: boolean }
  | { kind: 'firing'; episode: string }
  | { kind: 'clearing'; episode: string; since: number };

/** What a new observation (or the time passing) does to a watch. */
export interface EpisodeStep {
  state: EpisodeState;
  /** Send the episode's notification, or its end. */
  send?: { state: 'firing' | 'resolved'; episode: string };
  /** When to look again though nothing new was observed. */
  wakeAt?: number;
}

export interface EpisodeInput {
  /** Whether the condition holds; undefined while nothing is known. */
  holds: boolean | undefined;
  /** The observation arms a watch that needs it (e.g. the power went above `afterAbove`). */
  arms: boolean;
  now: number;
  holdMs: number;
  clearMs: number;
  /** Whether the watch is armed again after an episode ends. */
  armedAfterEnd: boolean;
  /** A new episode's id: unguessable, as it names the alert the episode rings (a resolve needs its sender too). */
  newEpisodeId: () => string;
}

/**
 * One step of a watch: the condition must hold for `holdMs` to fire (once per episode), and be false for `clearMs`
 * to end the episode; flapping inside either stretch changes nothing.
 */
export function stepEpisode(state: EpisodeState, input: EpisodeInput): EpisodeStep {
  const { holds, now } = input;
  switch (state.kind) {
    case 'quiet': {
      const armed = state.armed || input.arms;
      if (holds !== true || !armed) return { state: armed === state.armed ? state : { kind: 'quiet', armed } };
      return stepEpisode({ kind: 'holding', since: now, armed }, input);
    }
    case 'holding': {
      if (holds === undefined) return { state, wakeAt: state.since + input.holdMs };
      if (!holds) return { state: { kind: 'quiet', armed: state.armed || input.arms } };
      if (now < state.since + input.holdMs) return { state, wakeAt: state.since + input.holdMs };
      const episode = input.newEpisodeId();
      return { state: { kind: 'firing', episode }, send: { state: 'firing', episode } };
    }
    case 'firing':
      if (holds !== false) return { state };
      return stepEpisode({ kind: 'clearing', episode: state.episode, since: now }, input);
    case 'clearing': {
      if (holds === true) return { state: { kind: 'firing', episode: state.episode } };
      if (now < state.since + input.clearMs) return { state, wakeAt: state.since + input.clearMs };
      return { state: { kind: 'quiet', armed: input.armedAfterEnd }, send: { state: 'resolved', episode: state.episode } };
    }
  }
}
