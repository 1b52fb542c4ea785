// Types of build-workers.mjs, for the tests and the benchmark that build the worker bundles themselves.
export declare const WORKER_ENTRIES: readonly string[];
export declare function bundleOf(entry: string): string;
export declare function bundleWorker(entry: string, distDir: string): Promise<void>;
export declare function bundleWorkers(distDir: string): Promise<void>;
