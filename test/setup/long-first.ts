import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take a minute or more on two cores. They start first, whatever vitest's cache of
 * durations says (a fresh clone has none and would order by file size), so that none of them
 * starts last and leaves the other workers idle while it runs alone.
 */
const LONG = [
  'test/fuzz/',
  'test/docs/samples.test.ts',
  'test/contract/other-sdks.test.ts',
  'test/contract/node-sdk.test.ts',
  'test/install/',
  'test/browser/',
  'test/api/sending-processes.test.ts',
  'test/api/stopping.test.ts',
];

const rank = (file: string) => {
  const i = LONG.findIndex((prefix) => file.includes(`/${prefix}`));
  return i === -1 ? LONG.length : i;
};

export default class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file.moduleId) - rank(b.file.moduleId) || a.order - b.order)
      .map(({ file }) => file);
  }
}
