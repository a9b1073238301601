#!/bin/bash
# Runs inside the LocalStack container once it is ready. It checks that SQS and SNS
# answer (a missing service is otherwise only discovered halfway through a deploy), and
# prints the next steps, which run on the host.
set -euo pipefail

awslocal sqs list-queues >/dev/null
awslocal sns list-topics >/dev/null

if [ -n "${LOCALSTACK_AUTH_TOKEN:-}" ]; then
  worker_flag=""
else
  # The free edition has no ECS: deploy queues and monitoring, run the worker on the host.
  worker_flag=" -c requeue:worker=false"
fi

cat <<MESSAGE
requeue: LocalStack is ready for the stack. On the host:
  npx --package aws-cdk-local cdklocal bootstrap
  npx --package aws-cdk-local cdklocal deploy${worker_flag}
or, without cdklocal, create just the queues, topic and subscription from the template:
  AWS_ENDPOINT_URL=http://127.0.0.1:4566 npm run local:provision
MESSAGE
