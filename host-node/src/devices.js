// GPUs, one per job (`--gpus`): which devices there are, which job gets which, and the
// environment that shows a process only its own.

import { spawnSync } from 'node:child_process';
import { AutoddError } from './errors.js';

/**
 * The variables that choose devices, in the order `auto` reads them. CUDA and ROCr take
 * device indices or UUIDs of the machine; HIP's indices count the devices ROCr left
 * (HIP reads `HIP_VISIBLE_DEVICES`, else `CUDA_VISIBLE_DEVICES`).
 */
const VISIBLE = ['CUDA_VISIBLE_DEVICES', 'ROCR_VISIBLE_DEVICES', 'HIP_VISIBLE_DEVICES'];

/**
 * A device as the variables name it: an index, or a UUID such as `GPU-8f2c…`, `MIG-…`
 * (or `MIG-GPU-…/1/0`, as older drivers list a MIG device).
 */
const DEVICE = /^(\d+|(GPU|MIG)-[A-Za-z0-9_:.\/-]+)$/;

/**
 * A device a visibility variable shows: an index, or a GPU's or MIG instance's UUID.
 * CUDA reads the list up to its first other entry (`-1`, Slurm's `NoDevFiles`), which
 * hides the rest; so does `auto`.
 */
const SHOWN = /^(\d+|GPU-[0-9A-Za-z-]+|MIG-[0-9A-Za-z/-]+)$/;

/**
 * The devices `--gpus` names: a comma-separated list, or `auto` for the machine's.
 * @param {string | readonly string[]} gpus
 * @param {NodeJS.ProcessEnv} [env] where `auto` looks first
 * @param {boolean} [launched] the jobs run where a launcher starts them: `auto`, which
 *   reads this machine, is refused
 * @returns {string[]}
 */
export function parseGpus(gpus, env = process.env, launched = false) {
  if (gpus === 'auto' && launched) {
    throw new AutoddError(
      'usage',
      "--gpus auto reads this machine's GPUs, not those where --launcher runs the jobs: name those, e.g. --gpus 0,1, or leave --gpus out to keep the devices the launcher gives each job",
    );
  }
  if (gpus === 'auto') {
    const found = machineGpus(env);
    if (found.length === 0) {
      const set = VISIBLE.find((name) => env[name] !== undefined && env[name].trim() !== '');
      throw new AutoddError(
        'usage',
        set
          ? `--gpus auto found no GPU: ${set}='${env[set]}' shows none; name them, e.g. --gpus 0,1`
          : '--gpus auto found no GPU (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES are unset or empty, and `nvidia-smi -L` lists none); name them, e.g. --gpus 0,1',
      );
    }
    return found;
  }
  if (typeof gpus !== 'string' && !Array.isArray(gpus)) {
    throw new AutoddError('usage', `--gpus takes a list of devices or auto, not ${String(gpus)}`);
  }
  const list = typeof gpus === 'string' ? gpus.split(',') : [...gpus];
  const devices = list.map((d) => String(d).trim());
  const bad = devices.find((d) => !DEVICE.test(d));
  if (devices.length === 0 || bad !== undefined) {
    throw new AutoddError(
      'usage',
      `--gpus takes device indices or UUIDs separated by commas (e.g. 0,1,2,3) or auto, not '${String(gpus)}'`,
    );
  }
  if (new Set(devices).size !== devices.length) {
    throw new AutoddError('usage', `--gpus names a device twice: '${devices.join(',')}'`);
  }
  return devices;
}

/**
 * The devices this process may use: the first of the visibility variables that is set,
 * else the GPUs `nvidia-smi -L` lists, else none.
 * @param {NodeJS.ProcessEnv} env
 * @returns {string[]}
 */
export function machineGpus(env) {
  for (const name of VISIBLE) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') {
      const shown = [];
      for (const device of value.split(',').map((d) => d.trim())) {
        if (!SHOWN.test(device)) break;
        shown.push(device);
      }
      return shown;
    }
  }
  const smi = spawnSync('nvidia-smi', ['-L'], { encoding: 'utf8', timeout: 10_000, env });
  if (smi.status !== 0 || typeof smi.stdout !== 'string') return [];
  return smi.stdout
    .split('\n')
    .map((line) => /^GPU (\d+):/.exec(line)?.[1])
    .filter(/** @returns {d is string} */ (d) => d !== undefined);
}

/**
 * Job k's device: the k-th, round-robin when the jobs outnumber the devices.
 * @param {readonly string[]} devices
 * @param {number} jobs
 */
export function jobDevices(devices, jobs) {
  return Array.from({ length: jobs }, (_, k) => devices[k % devices.length]);
}

/**
 * `env` for a process that may see only `device`: CUDA and ROCr get the device, and HIP
 * the first (and only) device they leave. Setting `HIP_VISIBLE_DEVICES` to the device
 * itself would pick, on ROCm, that index among the one device ROCr left: none.
 * @param {NodeJS.ProcessEnv} env
 * @param {string | undefined} device undefined: `env` as it is
 * @returns {NodeJS.ProcessEnv}
 */
export function onDevice(env, device) {
  if (device === undefined) return env;
  return { ...env, CUDA_VISIBLE_DEVICES: device, ROCR_VISIBLE_DEVICES: device, HIP_VISIBLE_DEVICES: '0' };
}

/**
 * One line on which job has which device: `job 1 → 0, job 2 → 1`.
 * @param {readonly string[]} perJob
 */
export function describeDevices(perJob) {
  return perJob.map((d, k) => `job ${k + 1} → ${d}`).join(', ');
}
