import { growingFleet } from './suites/growing-fleet';

const result = await growingFleet();
console.log(JSON.stringify(result));
