/**
 * Child process for the print-queue restart test: opens the queue in argv[2], journals the job in argv[3] (JSON),
 * then dies with SIGKILL — no close, no cleanup, the lock file left behind — like a register losing power.
 */
import { PrintQueue } from '../../../electron/devices/escpos/print-queue.ts';

const [dir, jobJson] = process.argv.slice(2);
const queue = await PrintQueue.open(dir!);
await queue.enqueue(JSON.parse(jobJson!));
process.stdout.write('queued\n');
process.kill(process.pid, 'SIGKILL');
