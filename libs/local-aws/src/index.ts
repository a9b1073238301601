export { startLocalAws, startLocalRequeueStack, type LocalAws, type LocalAwsOptions, type LocalRequeueStack } from './local-aws.js';
export { provisionFromTemplate, type ProvisionedQueue, type ProvisionedStack, type ProvisionOptions } from './provision.js';
export { TemplateResolver, type PhysicalResource, type PseudoParameters } from './resolve.js';
export { readStackTemplate } from './stack-template.js';
export { asTemplate, LocalProvisioningError, type CloudFormationTemplate, type TemplateResource } from './template.js';
export { freePort } from './free-port.js';
export { startLoopbackEmulator, type LoopbackEmulator } from './loopback-emulator.js';
export { readSimulationLedger, type SimulationLedgerLine } from './simulation-ledger.js';
