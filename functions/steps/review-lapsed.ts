/**
 * The review deadline passed (AwaitReview's States.Timeout): an order still unreviewed ends in error, refunded, and so
 * does its execution (OrderClosed); a review that won the race is gone on from.
 */
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('review-lapsed', (input) => orderSteps().lapse(input.orderId, input.failure, input.execution));
