#!/usr/bin/env node
import { createRequeueApp } from '../lib/requeue-app.js';

// The props live in lib/deployment-props.ts, shared with local runs.
createRequeueApp();
