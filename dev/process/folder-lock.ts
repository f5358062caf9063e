/**
 * A lock between processes on one machine for work done once into a shared cache (a Python
 * environment, the packed tarballs): a folder made with mkdir, which only one process wins,
 * holding the winner's pid. A lock whose process is gone is taken over; the others wait.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    writeFileSync(path.join(lock, 'pid'), String(process.pid));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number(readPid(lock));
    // A lock without its pid yet is being taken right now: it is waited for like a held one.
    if (Number.isInteger(holder) && holder > 0 && !processAlive(holder)) {
      rmSync(lock, { recursive: true, force: true });
      return tryLock(lock);
    }
    return false;
  }
}

function readPid(lock: string): string {
  try {
    return readFileSync(path.join(lock, 'pid'), 'utf8');
  } catch {
    return '';
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs `body` holding the lock folder `lock`, checking every `everyMs` while another live process holds it. */
export async function withFolderLock<T>(lock: string, body: () => Promise<T>, everyMs = 250): Promise<T> {
  while (!tryLock(lock)) await sleep(everyMs);
  try {
    return await body();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
