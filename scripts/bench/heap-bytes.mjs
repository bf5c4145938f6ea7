// Bytes allocated on this process's JavaScript heap while some work runs, counted exactly: the growth
// of the used heap plus what each garbage collection in between freed (v8.GCProfiler reports the heap
// before and after each one). No collection is forced or kept away, so the process runs as it would
// otherwise. Only on-heap bytes count: Buffer and ArrayBuffer contents live outside the heap.
import v8 from "node:v8";

/** Resolves with the bytes allocated on the heap while `work` (async) ran. */
export async function allocatedBytes(work) {
  const profiler = new v8.GCProfiler();
  profiler.start();
  const before = v8.getHeapStatistics().used_heap_size;
  await work();
  const after = v8.getHeapStatistics().used_heap_size;
  const { statistics } = profiler.stop();
  let freed = 0;
  for (const { beforeGC, afterGC } of statistics) {
    freed += beforeGC.heapStatistics.usedHeapSize - afterGC.heapStatistics.usedHeapSize;
  }
  return after - before + freed;
}
