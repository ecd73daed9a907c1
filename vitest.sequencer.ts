import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each file took, by `<project>:<path>`, measured on a 2-core machine (`node scripts/test-timings.mjs`). */
const TIMINGS = JSON.parse(readFileSync(new URL('./test/timings.json', import.meta.url), 'utf8')) as Record<string, number>;

/** A file not measured yet: as long as a typical process-starting file, so that it is not left for the end. */
const UNKNOWN_SECONDS = { fast: 1, slow: 5 };

/**
 * The projects one after another, the one with the longest file first, and each project's files longest first.
 * Vitest's own order runs the projects by name, so on a fresh clone the browser files (slow:repository, about 70 s
 * each) started last and the run ended on one or two busy workers. A worker is kept for the next file only when that
 * file is of the same project, so the files of a project stay together. This run's durations (vitest's cache) win
 * over the committed ones; a file that failed last time still runs first within its project.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const expected = new Map(files.map((file) => [file, this.expectedSeconds(file)]));
    const longest = new Map<string, number>();
    for (const [file, seconds] of expected) longest.set(file.project.name, Math.max(seconds, longest.get(file.project.name) ?? 0));
    const projectOf = (file: TestSpecification) => longest.get(file.project.name)!;
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        projectOf(b) - projectOf(a) ||
        (a.project.name < b.project.name ? -1 : a.project.name > b.project.name ? 1 : 0) ||
        Number(this.failed(b)) - Number(this.failed(a)) ||
        expected.get(b)! - expected.get(a)!,
    );
  }

  private key(file: TestSpecification): string {
    return `${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`;
  }

  private failed(file: TestSpecification): boolean {
    return this.ctx.cache.getFileTestResults(this.key(file))?.failed === true;
  }

  private expectedSeconds(file: TestSpecification): number {
    const key = this.key(file);
    const cached = this.ctx.cache.getFileTestResults(key)?.duration;
    if (cached !== undefined && cached > 0) return cached / 1000;
    return TIMINGS[key] ?? UNKNOWN_SECONDS[file.project.name.startsWith('slow:') ? 'slow' : 'fast'];
  }
}
