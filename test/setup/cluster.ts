import type { TestProject } from 'vitest/node';
import { startCluster } from '../citus/cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The ports of the run's Citus cluster, the coordinator's first (cluster-file-database.ts). */
    clusterPorts: number[];
  }
}

/** One Citus cluster, a coordinator and two workers, for the project that runs the API suites on it. */
export default async function setup(project: TestProject) {
  const cluster = await startCluster(2);
  project.provide('clusterPorts', cluster.ports);
  return () => cluster.stop();
}
